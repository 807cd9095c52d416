package io.slotkeeper.scheduler.schedule;

import java.util.Objects;

/**
 * What a wall-clock schedule does when daylight saving time moves the clock. Chosen per job and
 * applied by {@link CronSchedule}, never left to a library's default.
 *
 * @param gap a local time that does not exist (the clock jumps forward over it)
 * @param overlap a local time that occurs twice (the clock falls back over it)
 */
public record DstPolicy(Gap gap, Overlap overlap) {

  /** Like classic cron: a skipped hour still fires once, a repeated hour fires once. */
  public static final DstPolicy DEFAULT =
      new DstPolicy(Gap.SHIFT_FORWARD, Overlap.FIRST_OCCURRENCE);

  /** Validates. */
  public DstPolicy {
    Objects.requireNonNull(gap, "gap");
    Objects.requireNonNull(overlap, "overlap");
  }

  /** A slot whose local time falls into a spring-forward gap. */
  public enum Gap {
    /** No slot: the local time never happened that day. */
    SKIP,
    /** One slot at the first instant after the gap (02:30 in a 02:00-03:00 gap fires at 03:00). */
    SHIFT_FORWARD
  }

  /** A slot whose local time occurs twice in a fall-back overlap. */
  public enum Overlap {
    /** One slot, at the earlier offset (the first time the wall clock shows it). */
    FIRST_OCCURRENCE,
    /** One slot, at the later offset (the second time). */
    LAST_OCCURRENCE,
    /** Two distinct slots, one per occurrence. */
    BOTH
  }
}
