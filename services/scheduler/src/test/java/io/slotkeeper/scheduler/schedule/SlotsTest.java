package io.slotkeeper.scheduler.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SlotsTest {

  private static final Instant T = Instant.parse("2026-03-08T07:00:00Z");

  @Test
  void betweenIsExclusiveInclusiveOrderedAndBounded() {
    Schedule s = IntervalSchedule.every(Duration.ofSeconds(1));
    assertThat(Slots.between(s, T, T.plusSeconds(3), 10))
        .containsExactly(T.plusSeconds(1), T.plusSeconds(2), T.plusSeconds(3));
    assertThat(Slots.between(s, T, T.plusSeconds(3), 2))
        .containsExactly(T.plusSeconds(1), T.plusSeconds(2));
    assertThat(Slots.between(s, T, T, 10)).isEmpty();
    assertThat(Slots.between(s, T, T.plusSeconds(3), 0)).isEmpty();
  }

  @Test
  void theSystemClockReadsTheMachinesTime() {
    assertThat(SlotClock.system().now()).isAfter(T.minus(Duration.ofDays(3650)));
  }
}
