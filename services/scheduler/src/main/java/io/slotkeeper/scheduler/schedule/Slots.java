package io.slotkeeper.scheduler.schedule;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Enumerating a schedule's slots. */
public final class Slots {

  private Slots() {}

  /**
   * The slots in {@code (fromExclusive, toInclusive]}, ascending, at most {@code limit} of them
   * (the earliest ones). Costs one {@link Schedule#nextAfter} per slot returned.
   */
  public static List<Instant> between(
      Schedule schedule, Instant fromExclusive, Instant toInclusive, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, got " + limit);
    }
    List<Instant> out = new ArrayList<>(Math.min(limit, 1024));
    Instant cursor = fromExclusive;
    while (out.size() < limit) {
      Optional<Instant> next = schedule.nextAfter(cursor);
      if (next.isEmpty() || next.get().isAfter(toInclusive)) {
        break;
      }
      out.add(next.get());
      cursor = next.get();
    }
    return out;
  }
}
