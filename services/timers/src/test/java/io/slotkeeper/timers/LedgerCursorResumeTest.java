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
 * oldest slot after the scan's start (the first planned point, or the catch-up window) without a
 * record (a fire that failed or was lost with its holder).
 */
class LedgerCursorResumeTest {

  private static final Schedule EVERY_SECOND = IntervalSchedule.every(Duration.ofSeconds(1));
  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  private static NavigableSet<Instant> seconds(int... offsets) {
    NavigableSet<Instant> out = new TreeSet<>();
    for (int o : offsets) {
      out.add(T0.plusSeconds(o));
    }
    return out;
  }

  private static LedgerCursor.Resume resume(NavigableSet<Instant> recorded, int from, int last) {
    return LedgerCursor.resumePoint(
        EVERY_SECOND, recorded, T0.plusSeconds(from), T0.plusSeconds(last));
  }

  @Test
  void withoutHolesItResumesAfterTheNewestRecord() {
    LedgerCursor.Resume r = resume(seconds(0, 1, 2, 3, 4), -1, 4);
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(4));
    assertThat(r.recordedAhead()).isEmpty();
  }

  @Test
  void aHoleMovesTheCursorBeforeItAndTheRecordsAfterItAreSkipped() {
    // Slots 2 and 5 failed to fire (e.g. under a lease lost meanwhile); 3, 4, 6 have records.
    LedgerCursor.Resume r = resume(seconds(0, 1, 3, 4, 6), -1, 6);
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(1));
    assertThat(List.copyOf(r.recordedAhead()))
        .containsExactly(T0.plusSeconds(3), T0.plusSeconds(4), T0.plusSeconds(6));
  }

  @Test
  void slotsAtOrBeforeTheScanStartAreNotHoles() {
    // First planned at second 9: nothing before it is missing.
    LedgerCursor.Resume r = resume(seconds(10, 11, 12), 9, 12);
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(12));
  }

  @Test
  void aSlotAfterTheScanStartBeforeTheOldestRecordIsAHole() {
    // First planned at second 7, but the first fire (8) never got a record: it is planned again.
    LedgerCursor.Resume r = resume(seconds(9, 10), 7, 10);
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(7));
    assertThat(List.copyOf(r.recordedAhead()))
        .containsExactly(T0.plusSeconds(9), T0.plusSeconds(10));
  }

  @Test
  void aScanCutShortByItsLimitOnlyVouchesForWhatItRead() {
    // The newest record is at 100 but the scan stopped at 3: no hole among 0..3, so no claim.
    LedgerCursor.Resume r = resume(seconds(0, 1, 2, 3), -1, 100);
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(100));
    assertThat(r.recordedAhead()).isEmpty();
  }

  @Test
  void anEmptyScanResumesAfterTheNewestRecord() {
    LedgerCursor.Resume r = resume(new TreeSet<>(), 0, 7);
    assertThat(r.cursor()).isEqualTo(T0.plusSeconds(7));
  }
}
