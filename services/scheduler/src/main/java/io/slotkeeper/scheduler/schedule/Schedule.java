package io.slotkeeper.scheduler.schedule;

import java.time.Instant;
import java.util.Optional;

/**
 * When a job is due. A schedule is a pure function of time: every instance of slotkeeper computes
 * the same slots, which is what lets a slot's ID be derived instead of coordinated.
 */
public sealed interface Schedule permits CronSchedule, IntervalSchedule {

  /** The first slot strictly after {@code t}, or empty if the schedule never fires again. */
  Optional<Instant> nextAfter(Instant t);

  /** The last slot at or before {@code t}, or empty if there is none. */
  Optional<Instant> latestAtOrBefore(Instant t);
}
