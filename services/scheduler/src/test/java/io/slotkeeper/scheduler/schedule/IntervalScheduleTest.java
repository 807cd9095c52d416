package io.slotkeeper.scheduler.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class IntervalScheduleTest {

  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void slotsLieOnMultiplesSinceTheEpochSoEveryInstanceAgrees() {
    IntervalSchedule s = IntervalSchedule.every(Duration.ofSeconds(10));
    assertThat(s.nextAfter(T)).contains(T.plusSeconds(10));
    assertThat(s.nextAfter(T.plusMillis(9_999))).contains(T.plusSeconds(10));
    assertThat(s.nextAfter(T.plusNanos(1))).contains(T.plusSeconds(10));
    assertThat(s.latestAtOrBefore(T)).contains(T);
    assertThat(s.latestAtOrBefore(T.plusNanos(9_999_999_999L))).contains(T);
    assertThat(s.latestAtOrBefore(T.minusNanos(1))).contains(T.minusSeconds(10));
  }

  @Test
  void anchorShiftsTheSlotsAndInstantsBeforeItWork() {
    Instant anchor = T.plusSeconds(3);
    IntervalSchedule s = new IntervalSchedule(Duration.ofSeconds(10), anchor);
    assertThat(s.nextAfter(T)).contains(T.plusSeconds(3));
    assertThat(s.latestAtOrBefore(T)).contains(T.minusSeconds(7));
    assertThat(s.nextAfter(Instant.EPOCH.minusSeconds(1))).isPresent();
  }

  @Test
  void daylightSavingDoesNotApply() {
    // An hourly interval across New York's fall-back: 24 slots in 24 elapsed hours.
    IntervalSchedule hourly = IntervalSchedule.every(Duration.ofHours(1));
    Instant from = Instant.parse("2026-11-01T00:00:00Z");
    assertThat(Slots.between(hourly, from, from.plus(Duration.ofHours(24)), 100)).hasSize(24);
  }

  @Test
  void invalidIntervalsAreRefused() {
    assertThatThrownBy(() -> IntervalSchedule.every(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IntervalSchedule.every(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IntervalSchedule.every(Duration.ofNanos(1_500_000)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
