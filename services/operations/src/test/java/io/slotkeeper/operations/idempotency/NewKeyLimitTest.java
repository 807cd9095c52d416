package io.slotkeeper.operations.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The per-principal cap on new keys: a sliding hour of one-minute buckets, per principal. */
class NewKeyLimitTest {

  @Test
  void aPrincipalAtItsCapWaitsUntilItsOldestKeysLeaveTheHour() {
    SettableClock clock = new SettableClock(Instant.parse("2026-12-01T10:00:30Z"));
    NewKeyLimit limit = new NewKeyLimit(3, clock);
    limit.record("client");
    clock.advance(Duration.ofMinutes(10));
    limit.record("client");
    limit.record("client");
    assertThat(limit.retryAfterSeconds("client")).isPositive();
    // The first key (10:00) leaves the window at 11:00; it is 10:10:30 now.
    assertThat(limit.retryAfterSeconds("client"))
        .isEqualTo(Duration.ofMinutes(49).toSeconds() + 30);
    // Another principal has its own count.
    assertThat(limit.retryAfterSeconds("operator")).isZero();
    clock.advance(Duration.ofMinutes(49).plusSeconds(30));
    assertThat(limit.retryAfterSeconds("client")).isZero();
    limit.record("client");
    // Two keys of 10:10 and one of 11:00: the 10:10 ones leave at 11:10.
    assertThat(limit.retryAfterSeconds("client")).isEqualTo(Duration.ofMinutes(10).toSeconds());
  }

  @Test
  void anHourLaterEverythingIsForgotten() {
    SettableClock clock = new SettableClock(Instant.parse("2026-12-01T10:00:30Z"));
    NewKeyLimit limit = new NewKeyLimit(2, clock);
    limit.record("client");
    limit.record("client");
    assertThat(limit.retryAfterSeconds("client")).isPositive();
    clock.advance(Duration.ofHours(3));
    assertThat(limit.retryAfterSeconds("client")).isZero();
    limit.record("client");
    assertThat(limit.retryAfterSeconds("client")).isZero();
  }

  @Test
  void zeroMeansNoCap() {
    NewKeyLimit limit = new NewKeyLimit(0, SlotClock.system());
    for (int i = 0; i < 1_000; i++) {
      limit.record("client");
    }
    assertThat(limit.retryAfterSeconds("client")).isZero();
  }

  @Test
  void aCheckAndARecordCostNanoseconds() {
    // The cap is checked on every keyed request, so it must cost next to nothing.
    NewKeyLimit limit = new NewKeyLimit(100_000, SlotClock.system());
    int rounds = 200_000;
    for (int i = 0; i < rounds; i++) { // warm-up
      limit.retryAfterSeconds("client");
      limit.record("warm");
    }
    long start = System.nanoTime();
    for (int i = 0; i < rounds; i++) {
      limit.retryAfterSeconds("client");
      limit.record("client");
    }
    long perRequest = (System.nanoTime() - start) / rounds;
    System.out.println("NewKeyLimit: " + perRequest + " ns per check and record");
    assertThat(perRequest).isLessThan(50_000);
  }
}
