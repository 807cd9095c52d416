package io.slotkeeper.operations.idempotency;

import io.slotkeeper.scheduler.schedule.SlotClock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cap on new Idempotency-Keys one principal may store per hour ({@code
 * SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR}; 0: no cap), counted in memory by this instance over the
 * last 60 whole minutes. One instance of it serves every API verticle of the process; each instance
 * of the service counts its own requests, so N instances behind a balancer admit up to N times the
 * cap. Concurrent requests may pass the cap by the few that are checked before any of them is
 * recorded. A check and a record cost a map lookup and a lock on the principal's window (no
 * database statement).
 */
public final class NewKeyLimit {

  private static final long MINUTE_MILLIS = 60_000;
  private static final int MINUTES = 60;

  private final int perHour;
  private final SlotClock clock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** At most {@code perHour} new keys per principal in any hour; 0 for no cap. */
  public NewKeyLimit(int perHour, SlotClock clock) {
    if (perHour < 0) {
      throw new IllegalArgumentException("perHour must not be negative: " + perHour);
    }
    this.perHour = perHour;
    this.clock = clock;
  }

  /** The cap (0: none). */
  public int perHour() {
    return perHour;
  }

  /**
   * 0 when the principal may store a new key now, else the seconds until the oldest of its keys in
   * the window leaves it far enough for one more (at least 1).
   */
  public long retryAfterSeconds(String principal) {
    if (perHour == 0) {
      return 0;
    }
    Window w = windows.get(principal);
    return w == null ? 0 : w.retryAfterSeconds(clock.now().toEpochMilli(), perHour);
  }

  /** Counts a new key of the principal. */
  public void record(String principal) {
    if (perHour > 0) {
      windows.computeIfAbsent(principal, p -> new Window()).add(clock.now().toEpochMilli());
    }
  }

  /** One principal's counts, one bucket per minute of the last hour. */
  private static final class Window {
    private final long[] minutes = new long[MINUTES];
    private final int[] counts = new int[MINUTES];

    synchronized void add(long nowMillis) {
      long minute = nowMillis / MINUTE_MILLIS;
      int i = (int) (minute % MINUTES);
      if (minutes[i] != minute) {
        minutes[i] = minute;
        counts[i] = 0;
      }
      counts[i]++;
    }

    synchronized long retryAfterSeconds(long nowMillis, int perHour) {
      long now = nowMillis / MINUTE_MILLIS;
      long total = 0;
      for (int i = 0; i < MINUTES; i++) {
        total += countAt(now - i, now);
      }
      if (total < perHour) {
        return 0;
      }
      // The minutes leave the window oldest first; the answer is when enough of them have left.
      for (long m = now - MINUTES + 1; m <= now; m++) {
        total -= countAt(m, now);
        if (total < perHour) {
          long leaves = (m + MINUTES) * MINUTE_MILLIS;
          return Math.max(1, (leaves - nowMillis + 999) / 1000);
        }
      }
      return MINUTES * 60L;
    }

    private int countAt(long minute, long now) {
      int i = (int) (minute % MINUTES);
      return minutes[i] == minute && minute > now - MINUTES ? counts[i] : 0;
    }
  }
}
