package io.slotkeeper.scheduler.schedule.job;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The schedules this service runs, as they are now. The timers and the operator API read it instead
 * of the jobs file; a schedule created, changed or deleted is announced to the listeners by name,
 * and they read it again. Whether a schedule is paused is not part of it: that is an operator's
 * switch the timers read from the slot ledger's side ({@code job_controls}).
 */
public interface ScheduleCatalog {

  /** Every schedule that exists now, sorted by name; a deleted one is absent. */
  List<JobDefinition> all();

  /** The schedule, if it exists. */
  Optional<JobDefinition> get(String name);

  /**
   * Registers a listener, called with the name of each schedule created, changed or deleted after
   * this call. It may be called on any thread and must not block.
   */
  void onChange(Consumer<String> listener);
}
