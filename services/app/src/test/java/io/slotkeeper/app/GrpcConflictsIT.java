package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.app.GrpcTestClient.Reply;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.OrderLine;
import io.slotkeeper.grpc.v1.OrderResult;
import io.slotkeeper.grpc.v1.OrderServiceGrpcClient;
import io.slotkeeper.grpc.v1.PlaceOrderRequest;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.StockLevel;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The conflict statuses of {@code GrpcStatuses} over a real gRPC client: a key whose first request
 * still runs is ABORTED (and 409 over HTTP), an explicit order ID in use is ALREADY_EXISTS.
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
  void aKeyWhoseFirstRequestStillRunsIsAbortedThenReplaysTheFirstAnswer() throws Exception {
    ReceiveStockRequest receive =
        ReceiveStockRequest.newBuilder()
            .setIdempotencyKey("g-in-flight-1")
            .setSku("G-FLIGHT")
            .setQty(4)
            .build();
    CompletableFuture<Reply<StockLevel>> first;
    try (Connection lock =
            DriverManager.getConnection(h.db.jdbcUrl(), h.db.user(), h.db.password());
        Statement st = lock.createStatement()) {
      // Every command inserts its ledger row: holding this lock keeps the first request running.
      lock.setAutoCommit(false);
      st.execute("LOCK TABLE command_ledger IN SHARE MODE");
      first =
          CompletableFuture.supplyAsync(
              () -> grpc.call(InventoryServiceGrpcClient.ReceiveStock, receive, AppHarness.CLIENT));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  "IN_FLIGHT"
                          .equals(
                              h.queryString(
                                  "SELECT state FROM idempotency_keys"
                                      + " WHERE idem_key = 'g-in-flight-1'"))
                      && h.count(
                              "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                                  + " current_database() AND wait_event_type = 'Lock'")
                          > 0);

      Reply<StockLevel> second =
          grpc.call(InventoryServiceGrpcClient.ReceiveStock, receive, AppHarness.CLIENT);
      assertThat(second.status()).as(second.message()).isEqualTo(GrpcStatus.ABORTED);
      assertThat(second.message()).contains("still being processed").contains("retry later");

      // The same key and request over HTTP: the same conflict, as 409 problem+json.
      HttpResponse<String> overHttp =
          h.post(
              "/v1/inventory/G-FLIGHT/receipts", AppHarness.CLIENT, "g-in-flight-1", "{\"qty\":4}");
      assertThat(overHttp.statusCode()).as(overHttp.body()).isEqualTo(409);
      assertThat(overHttp.headers().firstValue("Content-Type"))
          .hasValue("application/problem+json");
      assertThat(new JsonObject(overHttp.body()).getString("title")).isEqualTo("Request in flight");
      assertThat(first).isNotDone();
      lock.rollback();
    }

    Reply<StockLevel> firstAnswer = first.get(20, TimeUnit.SECONDS);
    assertThat(firstAnswer.status()).as(firstAnswer.message()).isEqualTo(GrpcStatus.OK);
    assertThat(firstAnswer.body().getOnHand()).isEqualTo(4);
    Reply<StockLevel> retry =
        grpc.call(InventoryServiceGrpcClient.ReceiveStock, receive, AppHarness.CLIENT);
    assertThat(retry.status()).as(retry.message()).isEqualTo(GrpcStatus.OK);
    assertThat(retry.headers().get("idempotent-replayed")).isEqualTo("true");
    assertThat(retry.body().getOnHand()).isEqualTo(4);
    // The conflicts ran nothing: one receipt.
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'inventory:G-FLIGHT'"))
        .isEqualTo(1);
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
