package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.app.GrpcTestClient.Reply;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.OrderLine;
import io.slotkeeper.grpc.v1.OrderResult;
import io.slotkeeper.grpc.v1.OrderServiceGrpcClient;
import io.slotkeeper.grpc.v1.PlaceOrderRequest;
import io.slotkeeper.grpc.v1.ProcessOrderRequest;
import io.slotkeeper.grpc.v1.ProcessOrderResponse;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.StockLevel;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The conflict statuses of {@code GrpcStatuses} over a real gRPC client: a key whose first request
 * of several steps still runs is ABORTED (and 409 over HTTP), while a one-command request waits for
 * its first one's answer; an explicit order ID in use is ALREADY_EXISTS.
 */
class GrpcConflictsIT {

  static AppHarness h;
  static GrpcTestClient grpc;

  @BeforeAll
  static void start() {
    h = new AppHarness("grpc_conflicts", Map.of());
    grpc = new GrpcTestClient(h.app.grpcPort());
  }

  @AfterAll
  static void stop() {
    grpc.close();
    h.close();
  }

  @Test
  void aKeyWhoseFirstCommandStillRunsMakesTheSecondRequestWaitForItsAnswer() throws Exception {
    ReceiveStockRequest receive =
        ReceiveStockRequest.newBuilder()
            .setIdempotencyKey("g-in-flight-1")
            .setSku("G-FLIGHT")
            .setQty(4)
            .build();
    CompletableFuture<Reply<StockLevel>> first;
    CompletableFuture<Reply<StockLevel>> second;
    CompletableFuture<HttpResponse<String>> overHttp;
    try (Connection lock = h.holdLedgerLock()) {
      // Holding the ledger lock keeps the first request running.
      first =
          CompletableFuture.supplyAsync(
              () -> grpc.call(InventoryServiceGrpcClient.ReceiveStock, receive, AppHarness.CLIENT));
      h.awaitLockWaiters(1);
      // An operation that is one command only looks its key up, and the key has no row until the
      // command commits: the same request again, over gRPC and over HTTP, waits for that commit.
      second =
          CompletableFuture.supplyAsync(
              () -> grpc.call(InventoryServiceGrpcClient.ReceiveStock, receive, AppHarness.CLIENT));
      overHttp =
          CompletableFuture.supplyAsync(
              () ->
                  h.post(
                      "/v1/inventory/G-FLIGHT/receipts",
                      AppHarness.CLIENT,
                      "g-in-flight-1",
                      "{\"qty\":4}"));
      Thread.sleep(500);
      assertThat(h.count("SELECT count(*) FROM idempotency_keys WHERE idem_key = 'g-in-flight-1'"))
          .isZero();
      assertThat(first).isNotDone();
      assertThat(second).isNotDone();
      assertThat(overHttp).isNotDone();
      lock.rollback();
    }

    Reply<StockLevel> firstAnswer = first.get(20, TimeUnit.SECONDS);
    assertThat(firstAnswer.status()).as(firstAnswer.message()).isEqualTo(GrpcStatus.OK);
    assertThat(firstAnswer.body().getOnHand()).isEqualTo(4);
    // The waiting requests applied nothing: each gets the first one's answer, as a replay.
    Reply<StockLevel> secondAnswer = second.get(20, TimeUnit.SECONDS);
    assertThat(secondAnswer.status()).as(secondAnswer.message()).isEqualTo(GrpcStatus.OK);
    assertThat(secondAnswer.headers().get("idempotent-replayed")).isEqualTo("true");
    assertThat(secondAnswer.body().getOnHand()).isEqualTo(4);
    HttpResponse<String> httpAnswer = overHttp.get(20, TimeUnit.SECONDS);
    assertThat(httpAnswer.statusCode()).as(httpAnswer.body()).isEqualTo(200);
    assertThat(httpAnswer.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(new JsonObject(httpAnswer.body()).getInteger("onHand")).isEqualTo(4);
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'inventory:G-FLIGHT'"))
        .isEqualTo(1);
  }

  @Test
  void aKeyWhoseFirstRequestOfSeveralStepsStillRunsIsAbortedThenReplaysTheFirstAnswer()
      throws Exception {
    Reply<OrderResult> placed =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            PlaceOrderRequest.newBuilder()
                .setIdempotencyKey("g-flight-order")
                .setCustomerId("c-1")
                .setCurrency("CNY")
                .addItems(OrderLine.newBuilder().setSku("G-NONE").setQty(1).setUnitPriceCents(100))
                .build(),
            AppHarness.CLIENT);
    assertThat(placed.status()).as(placed.message()).isEqualTo(GrpcStatus.OK);
    String orderId = placed.body().getOrderId();
    ProcessOrderRequest process =
        ProcessOrderRequest.newBuilder()
            .setOrderId(orderId)
            .setIdempotencyKey("g-in-flight-2")
            .build();
    CompletableFuture<Reply<ProcessOrderResponse>> first;
    try (Connection lock = h.holdLedgerLock()) {
      first =
          CompletableFuture.supplyAsync(
              () -> grpc.call(OrderServiceGrpcClient.ProcessOrder, process, AppHarness.OPERATOR));
      // Processing is several commands, so its key is claimed (IN_FLIGHT) before the first one.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  "IN_FLIGHT"
                      .equals(
                          h.queryString(
                              "SELECT state FROM idempotency_keys"
                                  + " WHERE idem_key = 'g-in-flight-2'")));
      h.awaitLockWaiters(1);

      Reply<ProcessOrderResponse> second =
          grpc.call(OrderServiceGrpcClient.ProcessOrder, process, AppHarness.OPERATOR);
      assertThat(second.status()).as(second.message()).isEqualTo(GrpcStatus.ABORTED);
      assertThat(second.message()).contains("still being processed").contains("retry later");

      // The same key and request over HTTP: the same conflict, as 409 problem+json.
      HttpResponse<String> overHttp =
          h.post("/v1/orders/" + orderId + "/process", AppHarness.OPERATOR, "g-in-flight-2", "{}");
      assertThat(overHttp.statusCode()).as(overHttp.body()).isEqualTo(409);
      assertThat(overHttp.headers().firstValue("Content-Type"))
          .hasValue("application/problem+json");
      assertThat(new JsonObject(overHttp.body()).getString("title")).isEqualTo("Request in flight");
      assertThat(first).isNotDone();
      lock.rollback();
    }

    Reply<ProcessOrderResponse> firstAnswer = first.get(20, TimeUnit.SECONDS);
    assertThat(firstAnswer.status()).as(firstAnswer.message()).isEqualTo(GrpcStatus.OK);
    Reply<ProcessOrderResponse> retry =
        grpc.call(OrderServiceGrpcClient.ProcessOrder, process, AppHarness.OPERATOR);
    assertThat(retry.status()).as(retry.message()).isEqualTo(GrpcStatus.OK);
    assertThat(retry.headers().get("idempotent-replayed")).isEqualTo("true");
    assertThat(retry.body().getStatus()).isEqualTo(firstAnswer.body().getStatus());
  }

  @Test
  void anExplicitOrderIdInUseIsAlreadyExists() {
    PlaceOrderRequest place =
        PlaceOrderRequest.newBuilder()
            .setIdempotencyKey("g-exists-1")
            .setOrderId("g-order-taken")
            .setCustomerId("c-1")
            .setCurrency("CNY")
            .addItems(OrderLine.newBuilder().setSku("A").setQty(1).setUnitPriceCents(100))
            .build();
    Reply<OrderResult> placed =
        grpc.call(OrderServiceGrpcClient.PlaceOrder, place, AppHarness.CLIENT);
    assertThat(placed.status()).as(placed.message()).isEqualTo(GrpcStatus.OK);
    long events = h.count("SELECT count(*) FROM domain_event_entry");

    Reply<OrderResult> taken =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            place.toBuilder().setIdempotencyKey("g-exists-2").setCustomerId("c-2").build(),
            AppHarness.CLIENT);
    assertThat(taken.status()).as(taken.message()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
    assertThat(taken.message()).contains("g-order-taken");
    assertThat(h.count("SELECT count(*) FROM domain_event_entry")).isEqualTo(events);
    // A rejection after execution began is saved under its key: the retry gets the same status.
    Reply<OrderResult> again =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            place.toBuilder().setIdempotencyKey("g-exists-2").setCustomerId("c-2").build(),
            AppHarness.CLIENT);
    assertThat(again.status()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
    assertThat(again.message()).isEqualTo(taken.message());
  }
}
