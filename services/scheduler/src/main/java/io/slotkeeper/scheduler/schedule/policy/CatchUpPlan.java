package io.slotkeeper.scheduler.schedule.policy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of {@link CatchUpPlanner#plan}: slots to fire and slots to record as missed, both
 * ascending. When more slots were due than the plan's limit, {@code resumeAfter} is the last slot
 * this plan covers; the caller records this plan and plans again from there.
 *
 * @param toFire slots to fire now
 * @param missed slots to record as missed, never fired
 * @param resumeAfter where the next plan starts, if this one stopped at its limit
 */
public record CatchUpPlan(
    List<Instant> toFire, List<Instant> missed, Optional<Instant> resumeAfter) {

  /** Copies the lists. */
  public CatchUpPlan {
    toFire = List.copyOf(toFire);
    missed = List.copyOf(missed);
  }

  /** Whether this plan covers every slot up to now. */
  public boolean complete() {
    return resumeAfter.isEmpty();
  }
}
