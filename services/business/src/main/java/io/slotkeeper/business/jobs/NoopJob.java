package io.slotkeeper.business.jobs;

import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import java.util.Map;

/**
 * {@code noop}: a benchmark and diagnostic handler that does nothing and reports {@code runs=1}.
 * Jobs name it with {@code handler: noop}; the timer precision and catch-up figures of {@code make
 * bench} (docs/benchmarks.md) use it, so that they measure the timers and the slot ledger, not a
 * job's work. No shipped job uses it.
 */
public final class NoopJob implements JobHandler {

  public static final String NAME = "noop";

  @Override
  public Map<String, Long> run(SlotRun run) {
    return Map.of("runs", 1L);
  }
}
