package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromQlTest {

  @Test
  void listsTheMetricsOfAnExpression() {
    assertThat(
            PromQl.metricNames(
                "histogram_quantile(0.99, sum by (le, job) "
                    + "(rate(slotkeeper_slot_lag_seconds_bucket{job=~\"$job\"}[$__rate_interval])))"
                    + " > 5"))
        .containsExactly("slotkeeper_slot_lag_seconds_bucket");
    assertThat(
            PromQl.metricNames(
                "max by (job) (increase(slotkeeper_slot_expected_total[10m])) - on (job) "
                    + "sum by (job) (increase(slotkeeper_slots_total{outcome=~\"fired|missed\"}"
                    + "[10m])) >= 2 and on() vector(1) unless absent(up)"))
        .containsExactly("slotkeeper_slot_expected_total", "slotkeeper_slots_total", "up");
    assertThat(PromQl.metricNames("label_values(slotkeeper_slots_total{instance=~\"$i\"}, job)"))
        .containsExactly("slotkeeper_slots_total");
    assertThat(PromQl.metricNames("label_values(instance)")).isEmpty();
    assertThat(PromQl.metricNames("abs(slotkeeper_clock_skew_seconds) > 0.5 * 1e0"))
        .containsExactly("slotkeeper_clock_skew_seconds");
  }
}
