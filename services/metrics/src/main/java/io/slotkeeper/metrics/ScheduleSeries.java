package io.slotkeeper.metrics;

import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which schedules have /metrics series of their own: each has about fifty (labelled {@code job}, or
 * {@code schedule} on the delivery meters), so 10,000 schedules made one scrape of half a million
 * series, more than one Prometheus target should send. The first {@code limit} registered schedules
 * <em>by name</em> keep theirs; the others are labelled {@value #OTHER}, where their counters and
 * histograms add up (and {@link SlotkeeperMetrics} leaves their gauges out).
 *
 * <p>By name, not by arrival: every instance registers the same schedules (the catalog's), so every
 * instance picks the same ones, which the alerts need (the dead man's switch compares the slots any
 * instance expected with those the lease holder fired, job by job). A schedule created or deleted
 * before the last one with its own series therefore moves one schedule across the line; {@link
 * #add} and {@link #remove} name it, and {@link SlotkeeperMetrics} moves its series. Not a
 * Micrometer {@code MeterFilter}: the registry caches each meter by its id before filtering, so a
 * filter's first answer for a schedule would be its last, and a schedule could never leave {@value
 * #OTHER} again.
 */
final class ScheduleSeries {

  /** The label value of the schedules without series of their own. */
  static final String OTHER = "_other";

  private static final Logger log = LoggerFactory.getLogger(ScheduleSeries.class);

  private final int limit;
  // Read on every meter use without a lock; written, like overflow, under this object's lock.
  private final NavigableSet<String> own = new ConcurrentSkipListSet<>();
  private final NavigableSet<String> overflow = new TreeSet<>();
  private boolean warned;

  ScheduleSeries(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("the schedule limit must not be negative: " + limit);
    }
    this.limit = limit;
  }

  /** The schedule's label value: its name, or {@value #OTHER} (also before it is registered). */
  String label(String schedule) {
    return own.contains(schedule) ? schedule : OTHER;
  }

  /**
   * Registers a schedule (again: no change).
   *
   * @return the schedule that left its own series for {@value #OTHER} to make room, or null
   */
  synchronized String add(String schedule) {
    if (own.contains(schedule) || overflow.contains(schedule) || OTHER.equals(schedule)) {
      return null;
    }
    if (own.size() < limit) {
      own.add(schedule);
      return null;
    }
    if (limit > 0 && schedule.compareTo(own.last()) < 0) {
      String moved = own.pollLast();
      overflow.add(moved);
      own.add(schedule);
      warn(moved);
      return moved;
    }
    overflow.add(schedule);
    warn(schedule);
    return null;
  }

  /**
   * Forgets a deleted schedule.
   *
   * @return the schedule that moved from {@value #OTHER} into the freed place, or null
   */
  synchronized String remove(String schedule) {
    if (!own.remove(schedule)) {
      overflow.remove(schedule);
      return null;
    }
    String moved = overflow.pollFirst();
    if (moved != null) {
      own.add(moved);
    }
    return moved;
  }

  /** Registered schedules labelled {@value #OTHER}. */
  synchronized int overflowing() {
    return overflow.size();
  }

  private void warn(String schedule) {
    if (!warned) {
      warned = true;
      log.warn(
          "more than {} schedules: {} and the others after the first {} by name are reported in"
              + " /metrics as job=\"{}\" (counters and histograms summed, no gauges); raise"
              + " SLOTKEEPER_METRICS_SCHEDULES to give more their own series",
          limit,
          schedule,
          limit,
          OTHER);
    }
  }
}
