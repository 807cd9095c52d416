package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.OrderLine;
import io.slotkeeper.grpc.v1.OrderServiceGrpcClient;
import io.slotkeeper.grpc.v1.PlaceOrderRequest;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Idempotency-Keys belong to the principal that sends them (issue 25): a client cannot take a key
 * an operator will use, nor learn from a 422 what the operator did with it; and one principal
 * stores at most {@code SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR} new keys, while its keys already held
 * still answer. The cap is counted per principal, so the tests run in order: the first spends a few
 * of the client's keys, the second spends the rest.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IdempotencyKeyScopeIT {

  static final int KEYS_PER_HOUR = 8;
  static final String ORDER =
      "{\"customerId\":\"c-scope\",\"currency\":\"CNY\","
          + "\"items\":[{\"sku\":\"SCOPE-A\",\"qty\":1,\"unitPriceCents\":100}]}";

  static AppHarness h;

  @BeforeAll
  static void start() {
    h =
        new AppHarness(
            "key_scope",
            Map.of("SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR", String.valueOf(KEYS_PER_HOUR)));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  @Order(1)
  void twoPrincipalsSendingOneKeyGetTwoIndependentAnswers() {
    // The client takes a key that an operator will use (as the README's "issue-1" would be).
    HttpResponse<String> client =
        h.post("/v1/inventory/SCOPE-A/receipts", AppHarness.CLIENT, "shared-1", "{\"qty\":3}");
    assertThat(client.statusCode()).as(client.body()).isEqualTo(200);
    // Shared keys answered the operator 422, naming the client's operation.
    HttpResponse<String> operator = h.post("/v1/orders", AppHarness.OPERATOR, "shared-1", ORDER);
    assertThat(operator.statusCode()).as(operator.body()).isEqualTo(201);
    assertThat(operator.headers().firstValue("Idempotent-Replayed")).isEmpty();

    // Each principal replays its own answer.
    HttpResponse<String> clientAgain =
        h.post("/v1/inventory/SCOPE-A/receipts", AppHarness.CLIENT, "shared-1", "{\"qty\":3}");
    assertThat(clientAgain.statusCode()).isEqualTo(200);
    assertThat(clientAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(new JsonObject(clientAgain.body())).isEqualTo(new JsonObject(client.body()));
    HttpResponse<String> operatorAgain =
        h.post("/v1/orders", AppHarness.OPERATOR, "shared-1", ORDER);
    assertThat(operatorAgain.statusCode()).isEqualTo(201);
    assertThat(operatorAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(new JsonObject(operatorAgain.body())).isEqualTo(new JsonObject(operator.body()));
    // The client's own key still holds its own request: its 422 names its own operation.
    HttpResponse<String> clientOther = h.post("/v1/orders", AppHarness.CLIENT, "shared-1", ORDER);
    assertThat(clientOther.statusCode()).isEqualTo(422);
    assertThat(clientOther.body()).contains(InventoryOperations.RECEIVE);
    assertThat(h.count("SELECT count(*) FROM idempotency_keys WHERE idem_key = 'shared-1'"))
        .isEqualTo(2);

    // Over gRPC alike: the operator's call is its own, not a mismatch of the client's key.
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      PlaceOrderRequest place =
          PlaceOrderRequest.newBuilder()
              .setIdempotencyKey("shared-1")
              .setCustomerId("c-scope")
              .setCurrency("CNY")
              .addItems(OrderLine.newBuilder().setSku("SCOPE-A").setQty(1).setUnitPriceCents(100))
              .build();
      var replayed = grpc.call(OrderServiceGrpcClient.PlaceOrder, place, AppHarness.OPERATOR);
      assertThat(replayed.status()).as(replayed.message()).isEqualTo(GrpcStatus.OK);
      assertThat(replayed.headers().get("idempotent-replayed")).isEqualTo("true");
      var mismatch = grpc.call(OrderServiceGrpcClient.PlaceOrder, place, AppHarness.CLIENT);
      assertThat(mismatch.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
      assertThat(mismatch.message()).contains(InventoryOperations.RECEIVE);
    }
  }

  @Test
  @Order(2)
  void newKeysBeyondThePrincipalsCapAre429AndStoreNothing() {
    int accepted = 0;
    HttpResponse<String> refused = null;
    while (refused == null && accepted <= KEYS_PER_HOUR) {
      HttpResponse<String> r =
          h.post("/v1/inventory/CAP/receipts", AppHarness.CLIENT, "cap-" + accepted, "{\"qty\":1}");
      if (r.statusCode() == 429) {
        refused = r;
      } else {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        accepted++;
      }
    }
    assertThat(refused).as("a new key beyond the cap is refused").isNotNull();
    assertThat(accepted).isBetween(1, KEYS_PER_HOUR - 1); // the first test spent one key
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1L, 3600L);
    assertThat(new JsonObject(refused.body()).getString("detail"))
        .contains("new Idempotency-Keys in the last hour");

    // Nothing of the refused request was stored or run.
    String refusedKey = "cap-" + accepted;
    assertThat(
            h.count("SELECT count(*) FROM idempotency_keys WHERE idem_key = '" + refusedKey + "'"))
        .isZero();
    assertThat(
            h.count(
                "SELECT count(*) FROM command_ledger WHERE command_id = '"
                    + DeterministicIds.forIdempotencyKey(InventoryOperations.RECEIVE, refusedKey)
                    + "'"))
        .isZero();

    // A key already held still answers, and the other principal has its own count.
    HttpResponse<String> replay =
        h.post("/v1/inventory/CAP/receipts", AppHarness.CLIENT, "cap-0", "{\"qty\":1}");
    assertThat(replay.statusCode()).isEqualTo(200);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(h.post("/v1/inventory/CAP/receipts", AppHarness.OPERATOR, "cap-op", "{\"qty\":1}"))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(200);

    // gRPC: RESOURCE_EXHAUSTED with the same message.
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      var exhausted =
          grpc.call(
              InventoryServiceGrpcClient.ReceiveStock,
              ReceiveStockRequest.newBuilder()
                  .setIdempotencyKey("cap-grpc")
                  .setSku("CAP")
                  .setQty(1)
                  .build(),
              AppHarness.CLIENT);
      assertThat(exhausted.status()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      assertThat(exhausted.message()).contains("new Idempotency-Keys in the last hour");
    }
    assertThat(h.get("/metrics", null).body())
        .containsPattern(
            "slotkeeper_idempotency_requests_total\\{[^}]*result=\"limited\"[^}]*\\} [1-9]");
  }
}
