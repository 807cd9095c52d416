package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fresh instance exports every per-job series the dashboard and the alerts read, for every
 * configured job, before any slot fires: an {@code absent()}-style alert or a panel must not see
 * "no data" on a healthy instance that has not fired yet.
 */
class FreshInstanceMetricsIT {

  static final List<String> JOBS =
      List.of(
          "order-fulfilment",
          "refund-settlement",
          "inventory-sync",
          "daily-report",
          "retention-cleanup");
  static final List<String> PER_JOB =
      List.of(
          "slotkeeper_slots_total",
          "slotkeeper_slot_expected_total",
          "slotkeeper_slot_lag_seconds_bucket",
          "slotkeeper_slot_lag_seconds_count",
          "slotkeeper_slot_duration_seconds_bucket",
          "slotkeeper_slot_duration_seconds_count",
          "slotkeeper_lease_held",
          "slotkeeper_lease_changes_total");

  static AppHarness h;

  @BeforeAll
  static void start() {
    // The shipped jobs file, timers off: nothing fires, nothing is recorded.
    h = new AppHarness("fresh_metrics", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void everyPerJobSeriesExistsBeforeTheFirstSlot() {
    String scrape = h.get("/metrics", null).body();
    for (String job : JOBS) {
      for (String metric : PER_JOB) {
        assertThat(scrape.lines())
            .as(metric + " of " + job)
            .anyMatch(l -> l.startsWith(metric + "{") && l.contains("job=\"" + job + "\""));
      }
    }
    // Within the default limit, no schedule is summed under _other.
    assertThat(scrape).contains("slotkeeper_metrics_schedules_overflow{");
    assertThat(scrape.lines()).noneMatch(l -> !l.startsWith("#") && l.contains("job=\"_other\""));
  }

  @Test
  void beyondTheScheduleLimitTheSchedulesAfterTheFirstByNameAreSummedAsOther() {
    try (AppHarness limited =
        new AppHarness("fresh_metrics_limited", Map.of("SLOTKEEPER_METRICS_SCHEDULES", "2"))) {
      List<String> scrape = limited.get("/metrics", null).body().lines().toList();
      for (String job : JOBS) {
        boolean own = job.equals("daily-report") || job.equals("inventory-sync");
        assertThat(scrape)
            .as(job)
            .filteredOn(l -> l.contains("job=\"" + job + "\""))
            .hasSize(own ? 43 : 0);
      }
      assertThat(scrape)
          .anyMatch(l -> l.startsWith("slotkeeper_slot_expected_total{") && l.contains("_other"))
          .noneMatch(l -> l.startsWith("slotkeeper_lease_held{") && l.contains("_other"))
          .anyMatch(l -> l.matches("slotkeeper_metrics_schedules_overflow\\{.*} 3\\.0"));
    }
  }
}
