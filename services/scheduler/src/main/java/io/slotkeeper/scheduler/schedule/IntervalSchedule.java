package io.slotkeeper.scheduler.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Slots at {@code anchor + k * interval}. The anchor (the epoch by default) rather than the start
 * time of a process fixes the slots, so every instance and every restart agrees on them. Time zones
 * and daylight saving do not apply: an interval counts elapsed time.
 */
public record IntervalSchedule(Duration interval, Instant anchor) implements Schedule {

  /** Slots at every multiple of {@code interval} since the epoch. */
  public static IntervalSchedule every(Duration interval) {
    return new IntervalSchedule(interval, Instant.EPOCH);
  }

  /** Validates: the interval is a positive whole number of milliseconds. */
  public IntervalSchedule {
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(anchor, "anchor");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
    if (interval.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "interval must be a whole number of milliseconds, got " + interval);
    }
    if (anchor.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "anchor must be a whole number of milliseconds, got " + anchor);
    }
  }

  @Override
  public Optional<Instant> nextAfter(Instant t) {
    return Optional.of(slot(index(t) + 1));
  }

  @Override
  public Optional<Instant> latestAtOrBefore(Instant t) {
    return Optional.of(slot(index(t)));
  }

  /**
   * Index of the last slot at or before {@code t}. Truncating {@code t} to milliseconds is exact
   * because every slot lies on a whole millisecond.
   */
  private long index(Instant t) {
    long sinceAnchor = Math.subtractExact(t.toEpochMilli(), anchor.toEpochMilli());
    return Math.floorDiv(sinceAnchor, interval.toMillis());
  }

  private Instant slot(long index) {
    return anchor.plusMillis(Math.multiplyExact(index, interval.toMillis()));
  }
}
