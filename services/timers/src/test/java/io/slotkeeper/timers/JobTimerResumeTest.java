package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.scheduler.schedule.IntervalSchedule;
import io.slotkeeper.scheduler.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Where a timer resumes after it (re)gains a job's lease: after the newest record, or before the
 * oldest slot without a record (a fire that failed or was lost with its holder).
 */
class JobTimerResumeTest {

  private static final Schedule EVERY_SECOND = IntervalSchedule.every(Duration.ofSeconds(1));
  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  private static NavigableSet<Instant> seconds(int... offsets) {
    NavigableSet<Instant> out = new TreeSet<>();
    for (int o : offsets) {
      out.add(T0.plusSeconds(o));
    }
    return out;
  }

  @Test
  void withoutHolesItResumesAfterTheNewestRecord() {
    JobTimerVerticle.Resume r =
        JobTimerVerticle.resumePoint(EVERY_SECOND, seconds(0, 1, 2, 3, 4), T0.plusSeconds(4));
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(4));
    assertThat(r.recordedAhead()).isEmpty();
  }

  @Test
  void aHoleMovesTheCursorBeforeItAndTheRecordsAfterItAreSkipped() {
    // Slots 2 and 5 failed to fire (e.g. under a lease lost meanwhile); 3, 4, 6 have records.
    JobTimerVerticle.Resume r =
        JobTimerVerticle.resumePoint(EVERY_SECOND, seconds(0, 1, 3, 4, 6), T0.plusSeconds(6));
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(1));
    assertThat(List.copyOf(r.recordedAhead()))
        .containsExactly(T0.plusSeconds(3), T0.plusSeconds(4), T0.plusSeconds(6));
  }

  @Test
  void slotsBeforeTheOldestRecordAreNotHoles() {
    // The job began at second 10: nothing before it is missing.
    JobTimerVerticle.Resume r =
        JobTimerVerticle.resumePoint(EVERY_SECOND, seconds(10, 11, 12), T0.plusSeconds(12));
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(12));
  }

  @Test
  void aScanCutShortByItsLimitOnlyVouchesForWhatItRead() {
    // The newest record is at 100 but the scan stopped at 3: no hole among 0..3, so no claim.
    JobTimerVerticle.Resume r =
        JobTimerVerticle.resumePoint(EVERY_SECOND, seconds(0, 1, 2, 3), T0.plusSeconds(100));
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(100));
    assertThat(r.recordedAhead()).isEmpty();
  }

  @Test
  void anEmptyScanResumesAfterTheNewestRecord() {
    JobTimerVerticle.Resume r =
        JobTimerVerticle.resumePoint(EVERY_SECOND, new TreeSet<>(), T0.plusSeconds(7));
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(7));
  }
}
