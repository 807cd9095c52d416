package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A write's {@code Location} (or entity) is readable at once: the read right after a 201 or 200
 * answers 200 with what was written, never 404, every time.
 */
class ReadYourWritesIT {

  static final int TRIES = 50;
  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("read_your_writes", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void anOrderIsReadableAtItsLocationRightAfterItsPlacement() {
    for (int i = 0; i < TRIES; i++) {
      HttpResponse<String> placed =
          h.post("/v1/orders", AppHarness.CLIENT, "ryw-order-" + i, OrdersHttpIT.ORDER);
      assertThat(placed.statusCode()).isEqualTo(201);
      String location = placed.headers().firstValue("Location").orElseThrow();
      HttpResponse<String> read = h.get(location, AppHarness.CLIENT);
      assertThat(read.statusCode()).as("try %d: %s", i, read.body()).isEqualTo(200);
      assertThat(new JsonObject(read.body()).getString("status")).isEqualTo("NEW");
    }
  }

  @Test
  void aCancelledOrderReadsCancelledRightAway() {
    for (int i = 0; i < TRIES / 5; i++) {
      String id =
          new JsonObject(
                  h.post("/v1/orders", AppHarness.CLIENT, "ryw-cancel-o-" + i, OrdersHttpIT.ORDER)
                      .body())
              .getString("orderId");
      assertThat(
              h.post("/v1/orders/" + id + "/cancel", AppHarness.CLIENT, "ryw-cancel-" + i, "{}")
                  .statusCode())
          .isEqualTo(200);
      JsonObject read = new JsonObject(h.get("/v1/orders/" + id, AppHarness.CLIENT).body());
      assertThat(read.getString("status")).as("try %d", i).isEqualTo("CANCELLED");
    }
  }

  @Test
  void stockIsReadableWithTheReceiptRightAfterIt() {
    for (int i = 0; i < TRIES; i++) {
      String sku = "RYW-" + (i % 5);
      HttpResponse<String> received =
          h.post(
              "/v1/inventory/" + sku + "/receipts",
              AppHarness.CLIENT,
              "ryw-stock-" + i,
              "{\"qty\":3}");
      assertThat(received.statusCode()).isEqualTo(200);
      long onHand = new JsonObject(received.body()).getLong("onHand");
      HttpResponse<String> read = h.get("/v1/inventory/" + sku, AppHarness.CLIENT);
      assertThat(read.statusCode()).as("try %d: %s", i, read.body()).isEqualTo(200);
      assertThat(new JsonObject(read.body()).getLong("onHand")).as("try %d", i).isEqualTo(onHand);
    }
  }

  @Test
  void aRefundIsReadableAtItsLocationAndIssuableRightAfterItsRequest() {
    assertThat(
            h.post("/v1/inventory/RYW-R/receipts", AppHarness.CLIENT, "ryw-r-stock", "{\"qty\":99}")
                .statusCode())
        .isEqualTo(200);
    String order =
        "{\"customerId\":\"c-1\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"RYW-R\",\"qty\":1,\"unitPriceCents\":5000}]}";
    String id =
        new JsonObject(h.post("/v1/orders", AppHarness.CLIENT, "ryw-r-order", order).body())
            .getString("orderId");
    assertThat(
            h.post("/v1/orders/" + id + "/process", AppHarness.OPERATOR, "ryw-r-proc", "{}").body())
        .contains("COMPLETED");
    for (int i = 0; i < TRIES; i++) {
      HttpResponse<String> requested =
          h.post(
              "/v1/orders/" + id + "/refunds",
              AppHarness.CLIENT,
              "ryw-refund-" + i,
              "{\"amountCents\":10,\"reason\":\"test\"}");
      assertThat(requested.statusCode()).as(requested.body()).isEqualTo(201);
      String location = requested.headers().firstValue("Location").orElseThrow();
      HttpResponse<String> read = h.get(location, AppHarness.CLIENT);
      assertThat(read.statusCode()).as("try %d: %s", i, read.body()).isEqualTo(200);
      if (i % 10 == 0) {
        String refundId = new JsonObject(requested.body()).getString("refundId");
        HttpResponse<String> issued =
            h.post(
                "/v1/refunds/" + refundId + "/issue", AppHarness.OPERATOR, "ryw-issue-" + i, "{}");
        assertThat(issued.statusCode()).as("try %d: %s", i, issued.body()).isEqualTo(200);
        assertThat(h.get(location, AppHarness.CLIENT).body()).contains("\"status\":\"ISSUED\"");
      }
    }
  }

  @Test
  void aScheduleIsReadableRunnableAndPausedRightAfterEachWrite() {
    for (int i = 0; i < TRIES / 5; i++) {
      String name = "ryw-schedule-" + i;
      HttpResponse<String> created =
          SchedulesHttpIT.send(
              h, "POST", "/v1/schedules", name, null, SchedulesHttpIT.EVERY_MINUTE.formatted(name));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      String location = created.headers().firstValue("Location").orElseThrow();
      HttpResponse<String> read = h.get(location, AppHarness.CLIENT);
      assertThat(read.statusCode()).as("try %d: %s", i, read.body()).isEqualTo(200);
      assertThat(read.headers().firstValue("ETag")).hasValue("\"1\"");
      // The runs routes know it too, before this instance's catalog has polled it.
      String nextSlot = new JsonObject(read.body()).getJsonArray("nextSlots").getString(0);
      HttpResponse<String> run =
          h.post(
              location + "/runs",
              AppHarness.OPERATOR,
              name + "-run",
              new JsonObject().put("slot", nextSlot).encode());
      assertThat(run.statusCode()).as("try %d: %s", i, run.body()).isEqualTo(200);
      assertThat(
              SchedulesHttpIT.send(h, "POST", location + "/pause", name + "-p", null, "{}")
                  .statusCode())
          .isEqualTo(200);
      JsonObject paused = new JsonObject(h.get(location, AppHarness.CLIENT).body());
      assertThat(paused.getString("state")).as("try %d", i).isEqualTo("PAUSED");
      assertThat(paused.getLong("version")).isEqualTo(2);
      assertThat(SchedulesHttpIT.send(h, "DELETE", location, name + "-d", null, null).statusCode())
          .isEqualTo(200);
      assertThat(h.get(location, AppHarness.CLIENT).statusCode()).as("try %d", i).isEqualTo(404);
    }
  }

  @Test
  void aReadNamingAVersionWaitsForItAndAnswers503WhenTheReadModelNeverGetsThere() throws Exception {
    HttpResponse<String> placed =
        h.post("/v1/orders", AppHarness.CLIENT, "ryw-version-1", OrdersHttpIT.ORDER);
    String location = placed.headers().firstValue("Location").orElseThrow();
    assertThat(readWithMinVersion(location, "1").statusCode()).isEqualTo(200);
    assertThat(readWithMinVersion(location, "not-a-number").statusCode()).isEqualTo(400);
    // Version 2 is never written (the order stays NEW): the read waits its 2 s, then tells the
    // client to retry rather than answering with an older version.
    long started = System.nanoTime();
    HttpResponse<String> tooNew = readWithMinVersion(location, "2");
    long waitedMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
    assertThat(tooNew.statusCode()).isEqualTo(503);
    assertThat(tooNew.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(waitedMs).isBetween(1_900L, 5_000L);
    // A plain read of an entity nobody wrote is a 404 at once.
    started = System.nanoTime();
    assertThat(h.get("/v1/orders/never-placed", AppHarness.CLIENT).statusCode()).isEqualTo(404);
    assertThat(Duration.ofNanos(System.nanoTime() - started).toMillis()).isLessThan(1_000);
  }

  @Test
  void aReadWaitsWhileTheProjectionIsHeldBack() throws Exception {
    // Lock the orders read table: the projection cannot write the new row until it is released.
    try (Connection lock =
        java.sql.DriverManager.getConnection(h.db.jdbcUrl(), h.db.user(), h.db.password())) {
      lock.setAutoCommit(false);
      try (Statement st = lock.createStatement()) {
        st.execute("LOCK TABLE orders IN EXCLUSIVE MODE");
      }
      HttpResponse<String> placed =
          h.post("/v1/orders", AppHarness.CLIENT, "ryw-held-1", OrdersHttpIT.ORDER);
      assertThat(placed.statusCode()).isEqualTo(201);
      String location = placed.headers().firstValue("Location").orElseThrow();
      java.util.concurrent.CompletableFuture<HttpResponse<String>> read =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> h.get(location, AppHarness.CLIENT));
      Thread.sleep(500);
      assertThat(read).isNotDone();
      lock.rollback();
      assertThat(read.get(5, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }

  private static HttpResponse<String> readWithMinVersion(String path, String version) {
    return h.send(
        HttpRequest.newBuilder(h.uri(path))
            .header("Authorization", "Bearer " + AppHarness.CLIENT)
            .header("Slotkeeper-Min-Version", version)
            .GET()
            .build());
  }
}
