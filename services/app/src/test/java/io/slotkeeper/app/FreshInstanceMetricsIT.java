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
  }
}
