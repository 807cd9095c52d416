package io.slotkeeper.api.http.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.timers.TimerHealth;
import io.slotkeeper.timers.TimerHealth.Fault;
import io.slotkeeper.timers.TimerHealth.Step;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The readiness answer's timer summary: counts, and at most twenty problems named. */
class TimerSummaryTest {

  static final Instant AT = Instant.parse("2026-12-04T12:00:00Z");

  @Test
  void countsEveryTimerAndNamesAtMostTwentyProblems() {
    Map<String, TimerHealth.Report> reports = new HashMap<>();
    List<String> names = new ArrayList<>();
    Fault fault = new Fault(Step.CURSOR, "connection refused", AT);
    for (int i = 0; i < 40; i++) {
      String name = String.format("job-%02d", i);
      names.add(name);
      if (i < 10) {
        reports.put(name, new TimerHealth.Report(true, Optional.empty(), Optional.empty(), false));
      } else if (i < 13) {
        reports.put(name, new TimerHealth.Report(true, Optional.of(AT), Optional.empty(), false));
      } else if (i < 35) {
        reports.put(
            name, new TimerHealth.Report(false, Optional.empty(), Optional.of(fault), true));
      } // the last five: another instance's (no timer here)
    }
    JsonObject summary = HealthRoutes.timerSummary(names, n -> Optional.ofNullable(reports.get(n)));

    assertThat(summary.getInteger("hosted")).isEqualTo(35);
    assertThat(summary.getInteger("held")).isEqualTo(13);
    assertThat(summary.getInteger("stalled")).isEqualTo(3);
    assertThat(summary.getInteger("failing")).isEqualTo(22);
    JsonObject problems = summary.getJsonObject("problems");
    assertThat(problems.size()).isEqualTo(HealthRoutes.LISTED_PROBLEMS);
    assertThat(summary.getInteger("more")).isEqualTo(25 - HealthRoutes.LISTED_PROBLEMS);
    // A stalled timer says since when; a failing one its last fault.
    assertThat(problems.getJsonObject("job-10").getString("status")).isEqualTo("STALLED");
    assertThat(problems.getJsonObject("job-10").getString("since")).isEqualTo(AT.toString());
    JsonObject failing = problems.getJsonObject("job-13");
    assertThat(failing.getString("status")).isEqualTo("FAILING");
    assertThat(failing.getBoolean("held")).isFalse();
    assertThat(failing.getJsonObject("lastError").getString("step")).isEqualTo("cursor");
    assertThat(failing.getJsonObject("lastError").getString("error"))
        .isEqualTo("connection refused");
    assertThat(problems.fieldNames()).doesNotContain("job-00");
  }

  @Test
  void noProblemNoMore() {
    JsonObject summary =
        HealthRoutes.timerSummary(
            List.of("a"),
            n ->
                Optional.of(
                    new TimerHealth.Report(true, Optional.empty(), Optional.empty(), false)));
    assertThat(summary.getJsonObject("problems")).isEmpty();
    assertThat(summary.containsKey("more")).isFalse();
    assertThat(summary.getInteger("hosted")).isEqualTo(1);
  }
}
