package io.slotkeeper.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SettableClockTest {

  private static final Instant T = Instant.parse("2026-03-08T07:00:00Z");

  @Test
  void ticksWithoutSleeping() {
    SettableClock clock = new SettableClock(T);
    assertThat(clock.now()).isEqualTo(T);
    assertThat(clock.advance(Duration.ofSeconds(5))).isEqualTo(T.plusSeconds(5));
    clock.set(T.minusSeconds(1));
    assertThat(clock.now()).isEqualTo(T.minusSeconds(1));
  }
}
