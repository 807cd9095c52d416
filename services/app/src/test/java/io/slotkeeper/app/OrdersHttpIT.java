package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.operations.orders.OrderOperations;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The HTTP contract of orders, against a running service on real PostgreSQL and Redis. */
class OrdersHttpIT {

  static final String ORDER =
      "{\"customerId\":\"c-1\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"A\",\"qty\":2,\"unitPriceCents\":150}]}";
  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("orders_http", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void placingAnOrderReturnsItAndReplaysTheSameKey() {
    HttpResponse<String> first = h.post("/v1/orders", AppHarness.CLIENT, "place-1", ORDER);
    assertThat(first.statusCode()).isEqualTo(201);
    JsonObject body = new JsonObject(first.body());
    assertThat(body.getString("status")).isEqualTo("NEW");
    assertThat(body.getLong("amountCents")).isEqualTo(300);
    assertThat(body.getLong("version")).isEqualTo(1);
    String orderId = body.getString("orderId");
    assertThat(first.headers().firstValue("Location")).hasValue("/v1/orders/" + orderId);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();

    // Keys in another order and other whitespace are the same request.
    String reordered =
        "{ \"items\":[{\"unitPriceCents\":150,\"qty\":2,\"sku\":\"A\"}], \"currency\":\"CNY\", \"customerId\":\"c-1\" }";
    HttpResponse<String> replay = h.post("/v1/orders", AppHarness.CLIENT, "place-1", reordered);
    assertThat(replay.statusCode()).isEqualTo(201);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(replay.headers().firstValue("Location")).hasValue("/v1/orders/" + orderId);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> h.get("/v1/orders/" + orderId, AppHarness.CLIENT).statusCode() == 200);
    JsonObject read = new JsonObject(h.get("/v1/orders/" + orderId, AppHarness.CLIENT).body());
    assertThat(read.getString("customerId")).isEqualTo("c-1");
    assertThat(read.getString("currency")).isEqualTo("CNY");
    assertThat(read.getJsonArray("items")).hasSize(1);
    assertThat(read.getString("status")).isEqualTo("NEW");
  }

  @Test
  void aSuccessIsSavedUnderItsKeyInTheTransactionOfItsCommand() {
    HttpResponse<String> first = h.post("/v1/orders", AppHarness.CLIENT, "same-tx-1", ORDER);
    assertThat(first.statusCode()).isEqualTo(201);
    String commandId = DeterministicIds.forIdempotencyKey(OrderOperations.PLACE, "same-tx-1");
    // The key's saved answer and the command's ledger row: one transaction, so neither can be
    // lost without the other, and the request cost no round trip after its command.
    assertThat(
            h.queryString(
                "SELECT k.state || ' ' || k.response_status || ' ' || (k.xmin::text = l.xmin::text)"
                    + " FROM idempotency_keys k, command_ledger l"
                    + " WHERE k.idem_key = 'same-tx-1' AND l.command_id = '"
                    + commandId
                    + "'"))
        .isEqualTo("COMPLETED 201 true");
    assertThat(
            new JsonObject(
                h.queryString(
                    "SELECT response_body FROM idempotency_keys WHERE idem_key = 'same-tx-1'")))
        .isEqualTo(new JsonObject(first.body()));
  }

  @Test
  void theSameKeyWithAnotherBodyOrRouteIs422() {
    assertThat(h.post("/v1/orders", AppHarness.CLIENT, "mismatch-1", ORDER).statusCode())
        .isEqualTo(201);
    String before = h.stateFingerprint();
    HttpResponse<String> other =
        h.post("/v1/orders", AppHarness.CLIENT, "mismatch-1", ORDER.replace("c-1", "c-2"));
    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    HttpResponse<String> otherRoute =
        h.post("/v1/orders/whatever/cancel", AppHarness.CLIENT, "mismatch-1", "{}");
    assertThat(otherRoute.statusCode()).isEqualTo(422);
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @Test
  void aKeyTakenByAnotherOperationWhileACommandRanRollsThatCommandBack() throws Exception {
    long eventsBefore = h.count("SELECT count(*) FROM domain_event_entry");
    CompletableFuture<HttpResponse<String>> order;
    CompletableFuture<HttpResponse<String>> receipt;
    try (Connection lock = h.holdLedgerLock()) {
      // Both commands run and then wait at their commit on the ledger: both looked the key up
      // while it was free, and only the first to commit may save it.
      order =
          CompletableFuture.supplyAsync(
              () -> h.post("/v1/orders", AppHarness.CLIENT, "two-ops-1", ORDER));
      h.awaitLockWaiters(1);
      receipt =
          CompletableFuture.supplyAsync(
              () ->
                  h.post(
                      "/v1/inventory/TWO-OPS/receipts",
                      AppHarness.CLIENT,
                      "two-ops-1",
                      "{\"qty\":3}"));
      h.awaitLockWaiters(2);
      lock.rollback();
    }
    HttpResponse<String> placed = order.get(20, TimeUnit.SECONDS);
    HttpResponse<String> received = receipt.get(20, TimeUnit.SECONDS);
    // Whichever committed first keeps the key; the other's command had applied in its own
    // transaction, its key's save failed at commit and rolled it back, and it answers 422.
    boolean orderWon = placed.statusCode() == 201;
    assertThat(orderWon ? received.statusCode() : placed.statusCode())
        .as(placed.body() + " / " + received.body())
        .isEqualTo(422);
    assertThat(orderWon ? 201 : received.statusCode()).isIn(200, 201);
    assertThat(h.count("SELECT count(*) FROM domain_event_entry") - eventsBefore).isEqualTo(1);
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'inventory:TWO-OPS'"))
        .isEqualTo(orderWon ? 0 : 1);
    // A key taken is the caller's doing: the rolled-back command counts as rejected, not failed
    // (the alert on failed commands is about the infrastructure).
    String scrape = h.get("/metrics", null).body();
    assertThat(scrape.lines())
        .filteredOn(l -> l.startsWith("slotkeeper_commands_total{"))
        .anyMatch(l -> l.contains("outcome=\"rejected\"") && !l.endsWith(" 0.0"))
        .noneMatch(l -> l.contains("outcome=\"failed\"") && !l.endsWith(" 0.0"));
  }

  @Test
  void twentyConcurrentRequestsWithOneKeyPlaceOneOrder() throws Exception {
    long eventsBefore = h.count("SELECT count(*) FROM domain_event_entry");
    ExecutorService pool = Executors.newFixedThreadPool(20);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      responses.add(
          pool.submit(
              () -> {
                go.await();
                return h.post("/v1/orders", AppHarness.CLIENT, "concurrent-1", ORDER);
              }));
    }
    go.countDown();
    List<String> createdBodies = new ArrayList<>();
    for (Future<HttpResponse<String>> f : responses) {
      HttpResponse<String> r = f.get();
      // Placing an order is one command: a request that comes while the first runs waits for
      // its answer (the command ID derives from the key; the ledger lets one apply).
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
      createdBodies.add(r.body());
    }
    pool.shutdown();
    assertThat(createdBodies).isNotEmpty().allMatch(b -> b.equals(createdBodies.get(0)));
    assertThat(h.count("SELECT count(*) FROM domain_event_entry") - eventsBefore).isEqualTo(1);
    // After the first finished, every retry is a replay.
    HttpResponse<String> later = h.post("/v1/orders", AppHarness.CLIENT, "concurrent-1", ORDER);
    assertThat(later.statusCode()).isEqualTo(201);
    assertThat(later.body()).isEqualTo(createdBodies.get(0));
  }

  @Test
  void cancellingTwiceUnderNewKeysIsAConflictNamingTheState() {
    String orderId =
        new JsonObject(h.post("/v1/orders", AppHarness.CLIENT, "cancel-place", ORDER).body())
            .getString("orderId");
    HttpResponse<String> cancel =
        h.post(
            "/v1/orders/" + orderId + "/cancel",
            AppHarness.CLIENT,
            "cancel-1",
            "{\"reason\":\"changed mind\"}");
    assertThat(cancel.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(cancel.body()).getString("status")).isEqualTo("CANCELLED");
    HttpResponse<String> again =
        h.post("/v1/orders/" + orderId + "/cancel", AppHarness.CLIENT, "cancel-2", "{}");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(new JsonObject(again.body()).getString("detail")).contains("it is CANCELLED");
    // The 409 was an answer after execution began: it is saved and replayed.
    HttpResponse<String> replay =
        h.post("/v1/orders/" + orderId + "/cancel", AppHarness.CLIENT, "cancel-2", "{}");
    assertThat(replay.statusCode()).isEqualTo(409);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                new JsonObject(h.get("/v1/orders/" + orderId, AppHarness.CLIENT).body())
                    .getString("status")
                    .equals("CANCELLED"));
  }

  @Test
  void aRebuiltProjectionShowsTheSameOrders() {
    String orderId =
        new JsonObject(h.post("/v1/orders", AppHarness.CLIENT, "rebuild-place", ORDER).body())
            .getString("orderId");
    h.awaitJson("/v1/orders/" + orderId, j -> "NEW".equals(j.getString("status")));
    assertThat(
            h.post("/v1/admin/projections/orders-projection/rebuild", AppHarness.OPERATOR, null, "")
                .statusCode())
        .isEqualTo(400);
    HttpResponse<String> rebuild =
        h.post("/v1/admin/projections/orders-projection/rebuild", AppHarness.OPERATOR, "rb-1", "");
    assertThat(rebuild.statusCode()).isEqualTo(202);
    assertThat(
            h.post("/v1/admin/projections/nope/rebuild", AppHarness.OPERATOR, "rb-2", "")
                .statusCode())
        .isEqualTo(404);
    h.awaitJson("/v1/orders/" + orderId, j -> "NEW".equals(j.getString("status")));
    assertThat(h.count("SELECT count(*) FROM orders"))
        .isEqualTo(
            h.count(
                "SELECT count(DISTINCT aggregate_identifier) FROM domain_event_entry WHERE payload_type LIKE '%OrderPlaced'"));
  }

  @Test
  void unknownOrdersAre404() {
    HttpResponse<String> get = h.get("/v1/orders/nope", AppHarness.CLIENT);
    assertThat(get.statusCode()).isEqualTo(404);
    assertThat(get.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    HttpResponse<String> cancel =
        h.post("/v1/orders/nope/cancel", AppHarness.CLIENT, "cancel-nope", "{}");
    assertThat(cancel.statusCode()).isEqualTo(404);
  }
}
