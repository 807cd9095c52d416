package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.IntervalSchedule;
import io.slotkeeper.timers.TimerHealth.Step;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A job is stalled once a slot and the next went by without progress while the lease is held. */
class TimerHealthTest {

  private static final Instant T0 = Instant.parse("2026-12-03T12:00:00Z");
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final TimerHealth health =
      new TimerHealth(
          "tick", IntervalSchedule.every(Duration.ofSeconds(10)), new SlotkeeperMetrics(registry));

  @Test
  void aHolderWithoutProgressForTwoPeriodsIsStalledSinceTheFirstSlotItLeftBehind() {
    health.held(true, T0.plusSeconds(1));
    // Slots at 10 and 20 fall due without progress; at 30 (two periods after 10) it is stalled.
    assertThat(health.stalledSince(T0.plusSeconds(29))).isEmpty();
    assertThat(health.stalledSince(T0.plusSeconds(30))).contains(T0.plusSeconds(10));
    assertThat(health.report(T0.plusSeconds(30)).stalledSince()).contains(T0.plusSeconds(10));
  }

  @Test
  void progressResetsTheMeasureAndWithoutTheLeaseNothingIsStalled() {
    health.held(true, T0);
    health.progressed(T0.plusSeconds(25));
    assertThat(health.stalled(T0.plusSeconds(49))).isFalse();
    assertThat(health.stalled(T0.plusSeconds(50))).isTrue();
    health.held(false, T0.plusSeconds(51));
    assertThat(health.stalled(T0.plusSeconds(500))).isFalse();
    // Regaining the lease starts the measure again from then.
    health.held(true, T0.plusSeconds(501));
    assertThat(health.stalled(T0.plusSeconds(520))).isFalse();
  }

  @Test
  void faultsAreCountedByStepAndReportedUntilAMaintenanceSucceeds() {
    health.fault(Step.CURSOR, new IllegalStateException("relation job_runs"), T0);
    health.fault(Step.CURSOR, new IllegalStateException("relation job_runs"), T0.plusSeconds(1));
    TimerHealth.Report r = health.report(T0.plusSeconds(2));
    assertThat(r.failing()).isTrue();
    assertThat(r.lastFault().orElseThrow().step()).isEqualTo(Step.CURSOR);
    assertThat(r.lastFault().orElseThrow().error()).contains("job_runs");
    assertThat(
            registry
                .get("slotkeeper.timer.errors")
                .tag("job", "tick")
                .tag("step", "cursor")
                .counter()
                .count())
        .isEqualTo(2.0);
    health.maintained();
    assertThat(health.report(T0.plusSeconds(3)).failing()).isFalse();
    assertThat(health.report(T0.plusSeconds(3)).lastFault()).isPresent();
  }

  @Test
  void theJobsFaultCountersExistAtZeroOnceItsTimerRunsHere() {
    // increase() over a series that appears at 1 would not count the first fault.
    assertThat(registry.find("slotkeeper.timer.errors").tag("job", "tick").counters())
        .hasSize(Step.values().length)
        .allSatisfy(c -> assertThat(c.count()).isZero());
  }
}
