package io.slotkeeper.scheduler.schedule;

import io.slotkeeper.events.DeterministicIds;
import java.time.Instant;
import java.util.Objects;

/**
 * One due time of one job: the unit that happens at most once. Its ID and the IDs of the commands
 * it sends derive from the job and the nominal time, so every instance that fires the slot, and
 * every retry, sends the same IDs.
 *
 * @param job the job's name
 * @param nominal when the schedule says the slot is due (not when it actually ran)
 */
public record Slot(String job, Instant nominal) {

  /** Validates. */
  public Slot {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(nominal, "nominal");
  }

  /** The slot's deterministic ID. */
  public String slotId() {
    return DeterministicIds.forSlot(job, nominal);
  }

  /** The command ID this slot uses for {@code target} (an order ID, a batch name). */
  public String commandId(String target) {
    return DeterministicIds.forSlotCommand(job, nominal, target);
  }
}
