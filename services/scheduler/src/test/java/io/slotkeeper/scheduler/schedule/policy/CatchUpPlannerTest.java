package io.slotkeeper.scheduler.schedule.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.DstPolicy;
import io.slotkeeper.scheduler.schedule.IntervalSchedule;
import io.slotkeeper.scheduler.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatchUpPlannerTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final Schedule EVERY_SECOND = IntervalSchedule.every(Duration.ofSeconds(1));
  private static final Schedule EVERY_10S = IntervalSchedule.every(Duration.ofSeconds(10));
  private static final Duration WINDOW = Duration.ofSeconds(10);

  @Test
  void allFiresEverySlotInTheWindowAndMissesOlderOnes() {
    CatchUpPlan plan = plan(CatchUpPolicy.ALL, NOW.minusSeconds(20), NOW);
    assertThat(plan.missed()).containsExactlyElementsOf(seconds(-19, -11));
    assertThat(plan.toFire()).containsExactlyElementsOf(seconds(-10, 0));
    assertThat(plan.complete()).isTrue();
  }

  @Test
  void latestFiresOnlyTheNewest() {
    CatchUpPlan plan = plan(CatchUpPolicy.LATEST, NOW.minusSeconds(20), NOW);
    assertThat(plan.toFire()).containsExactly(NOW);
    assertThat(plan.missed()).containsExactlyElementsOf(seconds(-19, -1));
  }

  @Test
  void noneFiresOnlyASlotDueRightNow() {
    CatchUpPlan plan = plan(CatchUpPolicy.NONE, NOW.minusSeconds(20), NOW.plusMillis(500));
    assertThat(plan.toFire()).containsExactly(NOW);
    assertThat(plan.missed()).hasSize(19);

    // The newest slot is 5 s old: more than the grace, so NONE fires nothing, LATEST fires it.
    Instant later = NOW.plusSeconds(5);
    CatchUpPlan none =
        CatchUpPlanner.plan(
            EVERY_10S, CatchUpPolicy.NONE, WINDOW, NOW.minusSeconds(30), later, 100);
    assertThat(none.toFire()).isEmpty();
    assertThat(none.missed()).containsExactly(NOW.minusSeconds(20), NOW.minusSeconds(10), NOW);
    CatchUpPlan latest =
        CatchUpPlanner.plan(
            EVERY_10S, CatchUpPolicy.LATEST, WINDOW, NOW.minusSeconds(30), later, 100);
    assertThat(latest.toFire()).containsExactly(NOW);
  }

  @Test
  void aSlotOnTimeFiresUnderEveryPolicyEvenWithAZeroWindow() {
    for (CatchUpPolicy policy : CatchUpPolicy.values()) {
      CatchUpPlan plan =
          CatchUpPlanner.plan(
              EVERY_SECOND, policy, Duration.ZERO, NOW.minusSeconds(1), NOW.plusMillis(300), 10);
      assertThat(plan.toFire()).as(policy.name()).containsExactly(NOW);
      assertThat(plan.missed()).isEmpty();
    }
  }

  @Test
  void aNewJobCatchesNothingUp() {
    CatchUpPlan onTime =
        CatchUpPlanner.plan(EVERY_10S, CatchUpPolicy.ALL, WINDOW, null, NOW.plusMillis(400), 10);
    assertThat(onTime.toFire()).containsExactly(NOW);
    assertThat(onTime.missed()).isEmpty();
    CatchUpPlan between =
        CatchUpPlanner.plan(EVERY_10S, CatchUpPolicy.ALL, WINDOW, null, NOW.plusSeconds(5), 10);
    assertThat(between.toFire()).isEmpty();
    assertThat(between.missed()).isEmpty();
  }

  @Test
  void nothingDueGivesAnEmptyCompletePlan() {
    CatchUpPlan plan = plan(CatchUpPolicy.ALL, NOW, NOW.plusMillis(999));
    assertThat(plan.toFire()).isEmpty();
    assertThat(plan.missed()).isEmpty();
    assertThat(plan.complete()).isTrue();
  }

  @Test
  void theLimitSplitsAPlanAndResumingCoversEverySlotOnce() {
    for (CatchUpPolicy policy : CatchUpPolicy.values()) {
      List<Instant> fired = new ArrayList<>();
      List<Instant> missed = new ArrayList<>();
      Instant last = NOW.minusSeconds(100);
      int plans = 0;
      while (true) {
        CatchUpPlan plan =
            CatchUpPlanner.plan(EVERY_SECOND, policy, Duration.ofSeconds(200), last, NOW, 30);
        plans++;
        fired.addAll(plan.toFire());
        missed.addAll(plan.missed());
        if (plan.complete()) {
          break;
        }
        last = plan.resumeAfter().orElseThrow();
      }
      assertThat(plans).isEqualTo(4);
      assertThat(fired.size() + missed.size()).as(policy.name()).isEqualTo(100);
      assertThat(fired).as(policy.name()).hasSize(policy == CatchUpPolicy.ALL ? 100 : 1);
      if (policy != CatchUpPolicy.ALL) {
        assertThat(fired).containsExactly(NOW);
      }
    }
  }

  @Test
  void tenThousandMissedSlotsArePlannedCompletely() {
    // Speed is measured by the catch-up benchmark (make bench), not by a timed unit test.
    Schedule cron = new CronSchedule("* * * * * *", ZoneId.of("Europe/Berlin"), DstPolicy.DEFAULT);
    for (Schedule schedule : List.of(EVERY_SECOND, cron)) {
      CatchUpPlan plan =
          CatchUpPlanner.plan(
              schedule, CatchUpPolicy.LATEST, WINDOW, NOW.minusSeconds(10_000), NOW, 20_000);
      assertThat(plan.missed()).hasSize(9_999);
      assertThat(plan.toFire()).containsExactly(NOW);
      assertThat(plan.complete()).isTrue();
    }
  }

  @Test
  void invalidArgumentsAreRefused() {
    assertThatThrownBy(
            () -> CatchUpPlanner.plan(EVERY_SECOND, CatchUpPolicy.ALL, WINDOW, null, NOW, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                CatchUpPlanner.plan(
                    EVERY_SECOND, CatchUpPolicy.ALL, Duration.ofSeconds(-1), null, NOW, 10))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static CatchUpPlan plan(CatchUpPolicy policy, Instant lastKnown, Instant now) {
    return CatchUpPlanner.plan(EVERY_SECOND, policy, WINDOW, lastKnown, now, 1_000);
  }

  /** NOW + from .. NOW + to seconds, inclusive. */
  private static List<Instant> seconds(int from, int to) {
    List<Instant> out = new ArrayList<>();
    for (int s = from; s <= to; s++) {
      out.add(NOW.plusSeconds(s));
    }
    return out;
  }
}
