package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Stock, fulfilment and refunds over HTTP, end to end. */
class FulfilmentAndRefundsHttpIT {

  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("fulfil_http", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static String order(String sku, int qty, int price) {
    return "{\"customerId\":\"c-9\",\"currency\":\"CNY\",\"items\":[{\"sku\":\""
        + sku
        + "\",\"qty\":"
        + qty
        + ",\"unitPriceCents\":"
        + price
        + "}]}";
  }

  @Test
  void receiveProcessRefundAndIssue() {
    HttpResponse<String> receipt =
        h.post("/v1/inventory/TEA-1/receipts", AppHarness.CLIENT, "receipt-1", "{\"qty\":10}");
    assertThat(receipt.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(receipt.body()).getLong("available")).isEqualTo(10);

    String orderId =
        new JsonObject(
                h.post("/v1/orders", AppHarness.CLIENT, "ord-1", order("TEA-1", 4, 250)).body())
            .getString("orderId");

    // Refunds need a COMPLETED order.
    HttpResponse<String> early =
        h.post(
            "/v1/orders/" + orderId + "/refunds",
            AppHarness.CLIENT,
            "ref-early",
            "{\"amountCents\":100,\"reason\":\"x\"}");
    assertThat(early.statusCode()).isEqualTo(409);
    assertThat(new JsonObject(early.body()).getString("detail")).contains("NEW");

    assertThat(
            h.post("/v1/orders/" + orderId + "/process", AppHarness.CLIENT, "proc-1", "")
                .statusCode())
        .isEqualTo(403);
    HttpResponse<String> processed =
        h.post("/v1/orders/" + orderId + "/process", AppHarness.OPERATOR, "proc-1", "");
    assertThat(processed.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(processed.body()).getString("status")).isEqualTo("COMPLETED");
    // Processing again under a new key changes nothing.
    assertThat(
            new JsonObject(
                    h.post("/v1/orders/" + orderId + "/process", AppHarness.OPERATOR, "proc-2", "")
                        .body())
                .getString("status"))
        .isEqualTo("COMPLETED");

    h.awaitJson("/v1/inventory/TEA-1", j -> j.getLong("onHand") == 6 && j.getLong("reserved") == 0);
    JsonObject log =
        new JsonObject(h.get("/v1/inventory/TEA-1/log?limit=10", AppHarness.CLIENT).body());
    assertThat(log.getJsonArray("entries")).hasSize(3); // received, reserved, committed

    HttpResponse<String> refund =
        h.post(
            "/v1/orders/" + orderId + "/refunds",
            AppHarness.CLIENT,
            "ref-1",
            "{\"amountCents\":600,\"reason\":\"damaged\"}");
    assertThat(refund.statusCode()).isEqualTo(201);
    JsonObject r = new JsonObject(refund.body());
    assertThat(r.getString("status")).isEqualTo("REQUESTED");
    assertThat(r.getLong("refundableCents")).isEqualTo(400);
    String refundId = r.getString("refundId");

    HttpResponse<String> tooMuch =
        h.post(
            "/v1/orders/" + orderId + "/refunds",
            AppHarness.CLIENT,
            "ref-2",
            "{\"amountCents\":401,\"reason\":\"greedy\"}");
    assertThat(tooMuch.statusCode()).isEqualTo(422);
    assertThat(new JsonObject(tooMuch.body()).getString("detail")).contains("400");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> h.get("/v1/refunds/" + refundId, AppHarness.CLIENT).statusCode() == 200);
    HttpResponse<String> issued =
        h.post("/v1/refunds/" + refundId + "/issue", AppHarness.OPERATOR, "iss-1", "");
    assertThat(issued.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(issued.body()).getString("status")).isEqualTo("ISSUED");
    HttpResponse<String> again =
        h.post("/v1/refunds/" + refundId + "/issue", AppHarness.OPERATOR, "iss-2", "");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(issued.body());
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE payload_type LIKE '%RefundIssued'"))
        .isEqualTo(1);

    h.awaitJson(
        "/v1/orders/" + orderId + "/refunds",
        j ->
            j.getJsonArray("refunds").size() == 1
                && "ISSUED".equals(j.getJsonArray("refunds").getJsonObject(0).getString("status")));
  }

  /**
   * Text PostgreSQL cannot store (NUL, another control character, an unpaired surrogate) in a
   * cancel, receipt or refund reason: 400 naming the field, nothing changed. Before, the cancel and
   * the receipt were accepted and their events stopped a projection for good; the refund was a 500.
   */
  @Test
  void unstorableTextIsRefusedWith400NamingTheFieldAndChangesNothing() {
    h.post("/v1/inventory/NUL-1/receipts", AppHarness.CLIENT, "nul-recv", "{\"qty\":10}");
    String completed =
        new JsonObject(
                h.post("/v1/orders", AppHarness.CLIENT, "nul-ord-1", order("NUL-1", 1, 100)).body())
            .getString("orderId");
    h.post("/v1/orders/" + completed + "/process", AppHarness.OPERATOR, "nul-proc", "");
    String fresh =
        new JsonObject(
                h.post("/v1/orders", AppHarness.CLIENT, "nul-ord-2", order("NUL-1", 1, 100)).body())
            .getString("orderId");
    String before = h.stateFingerprint();

    for (String reason : List.of("a\\u0000", "bell\\u0007", "cr\\r", "half\\ud800")) {
      String body = "{\"reason\":\"" + reason + "\"}";
      List<HttpResponse<String>> refused =
          List.of(
              h.post("/v1/orders/" + fresh + "/cancel", AppHarness.CLIENT, "nul-c-" + reason, body),
              h.post(
                  "/v1/inventory/NUL-1/receipts",
                  AppHarness.CLIENT,
                  "nul-r-" + reason,
                  "{\"qty\":1,\"reason\":\"" + reason + "\"}"),
              h.post(
                  "/v1/orders/" + completed + "/refunds",
                  AppHarness.CLIENT,
                  "nul-f-" + reason,
                  "{\"amountCents\":10,\"reason\":\"" + reason + "\"}"));
      assertThat(refused)
          .as("cancel, receipt, refund with %s", reason)
          .extracting(HttpResponse::statusCode)
          .containsExactly(400, 400, 400);
      for (HttpResponse<String> r : refused) {
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(new JsonObject(r.body()).getJsonObject("errors").getString("reason"))
            .startsWith("must not contain")
            .contains("U+");
      }
    }
    assertThat(h.stateFingerprint()).isEqualTo(before);
    // Tab and newline are text; the order's read model keeps following.
    HttpResponse<String> ok =
        h.post(
            "/v1/orders/" + fresh + "/cancel",
            AppHarness.CLIENT,
            "nul-ok",
            "{\"reason\":\"two\\tlines\\nhere\"}");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    h.awaitJson(
        "/v1/orders/" + fresh,
        j ->
            "CANCELLED".equals(j.getString("status"))
                && "two\tlines\nhere".equals(j.getString("statusReason")));
  }

  @Test
  void anOrderWithoutStockFailsAndReleasesItsReservations() {
    h.post("/v1/inventory/MUG-1/receipts", AppHarness.CLIENT, "receipt-mug", "{\"qty\":1}");
    String body =
        "{\"customerId\":\"c-9\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"MUG-1\",\"qty\":1,\"unitPriceCents\":5},{\"sku\":\"BOWL-1\",\"qty\":2,\"unitPriceCents\":5}]}";
    String orderId =
        new JsonObject(h.post("/v1/orders", AppHarness.CLIENT, "ord-fail", body).body())
            .getString("orderId");
    JsonObject result =
        new JsonObject(
            h.post("/v1/orders/" + orderId + "/process", AppHarness.OPERATOR, "proc-fail", "")
                .body());
    assertThat(result.getString("status")).isEqualTo("FAILED");
    assertThat(result.getString("reason")).contains("BOWL-1");
    h.awaitJson(
        "/v1/inventory/MUG-1", j -> j.getLong("available") == 1 && j.getLong("reserved") == 0);
  }

  @Test
  void anOrderAndASkuMayShareAnId() {
    String body =
        "{\"orderId\":\"SHARED-1\","
            + order("SHARED-1", 2, 100).substring(1); // the order's one line is its own ID's SKU
    HttpResponse<String> placed = h.post("/v1/orders", AppHarness.CLIENT, "shared-place", body);
    assertThat(placed.statusCode()).isEqualTo(201);
    assertThat(new JsonObject(placed.body()).getString("orderId")).isEqualTo("SHARED-1");

    HttpResponse<String> receipt =
        h.post("/v1/inventory/SHARED-1/receipts", AppHarness.CLIENT, "shared-rcv", "{\"qty\":5}");
    assertThat(receipt.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(receipt.body()).getLong("onHand")).isEqualTo(5);

    HttpResponse<String> processed =
        h.post("/v1/orders/SHARED-1/process", AppHarness.OPERATOR, "shared-proc", "");
    assertThat(processed.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(processed.body()).getString("status")).isEqualTo("COMPLETED");
    h.awaitJson("/v1/orders/SHARED-1", j -> "COMPLETED".equals(j.getString("status")));
    h.awaitJson("/v1/inventory/SHARED-1", j -> j.getLong("onHand") == 3);

    // The event stream names both aggregates by their business ID, as before.
    JsonArray events =
        new JsonObject(h.get("/v1/events?after=0&limit=1000", AppHarness.CLIENT).body())
            .getJsonArray("events");
    List<String> shared = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      JsonObject e = events.getJsonObject(i);
      if ("SHARED-1".equals(e.getString("aggregateId"))) {
        shared.add(e.getString("aggregateType") + "." + e.getString("type"));
      }
    }
    assertThat(shared)
        .containsExactlyInAnyOrder(
            "Order.OrderPlaced",
            "Inventory.StockReceived",
            "Order.OrderProcessingStarted",
            "Inventory.StockReserved",
            "Inventory.ReservationCommitted",
            "Order.OrderCompleted");
  }

  @Test
  void unknownThingsAre404AndBadLimitsAre400() {
    assertThat(h.get("/v1/inventory/NEVER", AppHarness.CLIENT).statusCode()).isEqualTo(404);
    assertThat(h.get("/v1/refunds/nope", AppHarness.CLIENT).statusCode()).isEqualTo(404);
    assertThat(h.get("/v1/inventory/X/log?limit=0", AppHarness.CLIENT).statusCode()).isEqualTo(400);
    assertThat(h.get("/v1/inventory/X/log?limit=abc", AppHarness.CLIENT).statusCode())
        .isEqualTo(400);
    assertThat(
            h.post("/v1/inventory/X/receipts", AppHarness.CLIENT, "r-bad", "{\"qty\":0}")
                .statusCode())
        .isEqualTo(400);
    assertThat(h.post("/v1/refunds/nope/issue", AppHarness.OPERATOR, "i-bad", "").statusCode())
        .isEqualTo(404);
  }
}
