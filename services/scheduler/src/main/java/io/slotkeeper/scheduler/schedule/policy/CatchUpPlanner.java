package io.slotkeeper.scheduler.schedule.policy;

import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.Slots;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Decides, purely, which past slots of a job fire and which are recorded as missed. */
public final class CatchUpPlanner {

  /**
   * How recent a slot must be to count as "due right now" rather than caught up: one timer tick.
   */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(1);

  private CatchUpPlanner() {}

  /**
   * {@link #plan(Schedule, CatchUpPolicy, Duration, Instant, Instant, int, Duration)} with the
   * default grace.
   */
  public static CatchUpPlan plan(
      Schedule schedule,
      CatchUpPolicy policy,
      Duration window,
      Instant lastKnownSlotOrNull,
      Instant now,
      int limit) {
    return plan(schedule, policy, window, lastKnownSlotOrNull, now, limit, DEFAULT_GRACE);
  }

  /**
   * Plans the slots in {@code (lastKnownSlot, now]}. A slot older than {@code now - window} is
   * missed. Within the window, {@link CatchUpPolicy#ALL} fires every slot, {@link
   * CatchUpPolicy#LATEST} the newest only, {@link CatchUpPolicy#NONE} only a newest slot within
   * {@code grace} of now. A slot within the grace is never older than the window (the effective
   * window is at least the grace), so a job that is merely on time always fires.
   *
   * <p>Without a last known slot (a new job) nothing is caught up: the plan covers {@code (now -
   * grace, now]}. At most {@code limit} slots are enumerated, so the cost is bounded whatever the
   * downtime; if more were due, the plan stops there ({@link CatchUpPlan#resumeAfter()}) and none
   * of its slots is the newest, so LATEST and NONE record them all as missed.
   */
  public static CatchUpPlan plan(
      Schedule schedule,
      CatchUpPolicy policy,
      Duration window,
      Instant lastKnownSlotOrNull,
      Instant now,
      int limit,
      Duration grace) {
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(now, "now");
    if (window.isNegative() || grace.isNegative()) {
      throw new IllegalArgumentException("window and grace must not be negative");
    }
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    Instant from = lastKnownSlotOrNull != null ? lastKnownSlotOrNull : now.minus(grace);
    List<Instant> slots = Slots.between(schedule, from, now, limit + 1);
    Optional<Instant> resumeAfter = Optional.empty();
    if (slots.size() > limit) {
      slots = slots.subList(0, limit);
      resumeAfter = Optional.of(slots.get(limit - 1));
    }
    Instant windowStart = now.minus(window.compareTo(grace) >= 0 ? window : grace);
    Instant graceStart = now.minus(grace);
    Instant newest = resumeAfter.isEmpty() && !slots.isEmpty() ? slots.get(slots.size() - 1) : null;

    List<Instant> toFire = new ArrayList<>();
    List<Instant> missed = new ArrayList<>();
    for (Instant slot : slots) {
      if (fires(policy, slot, slot.equals(newest), windowStart, graceStart)) {
        toFire.add(slot);
      } else {
        missed.add(slot);
      }
    }
    return new CatchUpPlan(toFire, missed, resumeAfter);
  }

  private static boolean fires(
      CatchUpPolicy policy, Instant slot, boolean newest, Instant windowStart, Instant graceStart) {
    if (slot.isBefore(windowStart)) {
      return false;
    }
    switch (policy) {
      case ALL:
        return true;
      case LATEST:
        return newest;
      default:
        return newest && slot.isAfter(graceStart);
    }
  }
}
