package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.orders.OrderProjection;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A projection that cannot advance is reported by {@code /health/ready} (DEGRADED, naming the
 * processor, segment, the event's position, the error and since when) and by {@code /metrics}, and
 * resumes by itself once the cause is gone. Before, health said UP and lag 0 while the segment
 * failed on every retry.
 */
class ProjectionHealthIT {

  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("projection_health", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  private static String place(String key) {
    HttpResponse<String> r = h.post("/v1/orders", AppHarness.CLIENT, key, OrdersHttpIT.ORDER);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return new JsonObject(r.body()).getString("orderId");
  }

  private static JsonObject ordersProjection() {
    HttpResponse<String> ready = h.get("/health/ready", null);
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(new JsonObject(ready.body()).getString("status")).isIn("UP", "DEGRADED");
    return new JsonObject(ready.body())
        .getJsonObject("checks")
        .getJsonObject("projections")
        .getJsonObject("processors")
        .getJsonObject(OrderProjection.NAME);
  }

  private static double metric(String name, String labels) {
    String scrape = h.get("/metrics", null).body();
    Matcher m =
        Pattern.compile("(?m)^" + name + "\\{([^}]*)\\} ([0-9.eE+-]+|NaN)$").matcher(scrape);
    while (m.find()) {
      if (m.group(1).contains(labels)) {
        return Double.parseDouble(m.group(2));
      }
    }
    throw new AssertionError(name + "{" + labels + "} is not exported");
  }

  private static void awaitVisible(List<String> orderIds) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                orderIds.stream()
                    .allMatch(
                        id -> h.get("/v1/orders/" + id, AppHarness.CLIENT).statusCode() == 200));
  }

  @Test
  void aPoisonEventMakesHealthDegradedNamingItUntilTheCauseIsGone() {
    String orderId = place("ph-place");
    awaitVisible(List.of(orderId));
    TestInfra.execute(
        h.db,
        "ALTER TABLE orders ADD CONSTRAINT poison CHECK (status_reason IS DISTINCT FROM 'poison')");
    HttpResponse<String> cancel =
        h.post(
            "/v1/orders/" + orderId + "/cancel",
            AppHarness.CLIENT,
            "ph-cancel",
            "{\"reason\":\"poison\"}");
    assertThat(cancel.statusCode()).isEqualTo(200);
    long position =
        h.count(
            "SELECT max(global_index) FROM domain_event_entry WHERE payload_type LIKE"
                + " '%OrderCancelled'");
    List<String> later = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      later.add(place("ph-later-" + i));
    }

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "DEGRADED".equals(ordersProjection().getString("status")));
    HttpResponse<String> ready = h.get("/health/ready", null);
    assertThat(new JsonObject(ready.body()).getString("status")).isEqualTo("DEGRADED");
    JsonObject orders = ordersProjection();
    assertThat(orders.getString("status")).isEqualTo("DEGRADED");
    JsonObject stuck = orders.getJsonArray("stuckSegments").getJsonObject(0);
    assertThat(stuck.getString("state")).isEqualTo("FAILING");
    assertThat(stuck.getLong("position")).isEqualTo(position);
    assertThat(stuck.getInteger("segment")).isBetween(0, 1);
    assertThat(stuck.getString("error")).contains("23514");
    assertThat(Instant.parse(stuck.getString("since"))).isBeforeOrEqualTo(Instant.now());
    assertThat(orders.getLong("lagEvents")).isPositive();
    assertThat(metric("slotkeeper_projection_errors_total", OrderProjection.NAME))
        .isGreaterThanOrEqualTo(stuck.getLong("attempts"));
    assertThat(
            metric(
                "slotkeeper_projection_segments_stuck",
                "processor=\"" + OrderProjection.NAME + "\",reason=\"failing\""))
        .isEqualTo(1.0);

    TestInfra.execute(h.db, "ALTER TABLE orders DROP CONSTRAINT poison");

    awaitVisible(later);
    h.awaitJson("/v1/orders/" + orderId, j -> "CANCELLED".equals(j.getString("status")));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "UP".equals(ordersProjection().getString("status")));
    assertThat(
            metric(
                "slotkeeper_projection_segments_stuck",
                "processor=\"" + OrderProjection.NAME + "\",reason=\"failing\""))
        .isZero();
  }

  @Test
  void aProjectionRecoversByItselfAfterATransientFault() {
    double errorsBefore = metric("slotkeeper_projection_errors_total", OrderProjection.NAME);
    TestInfra.execute(h.db, "ALTER TABLE orders RENAME TO orders_away"); // a read table blip
    List<String> placed = new ArrayList<>();
    try {
      for (int i = 0; i < 5; i++) {
        placed.add(place("ph-blip-" + i));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  metric("slotkeeper_projection_errors_total", OrderProjection.NAME)
                      > errorsBefore);
    } finally {
      TestInfra.execute(h.db, "ALTER TABLE orders_away RENAME TO orders");
    }

    awaitVisible(placed);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "UP".equals(ordersProjection().getString("status")));
  }
}
