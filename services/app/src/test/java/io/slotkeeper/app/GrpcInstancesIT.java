package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.StockLevel;
import io.vertx.grpc.common.GrpcStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gRPC API runs as many verticle instances as the HTTP API (SLOTKEEPER_HTTP_EVENT_LOOPS), all
 * on one port: Vert.x hands new connections to the instances in turn (not observable from here;
 * what is checked is that every connection is served and that a key is shared across them).
 */
class GrpcInstancesIT {

  static AppHarness h;
  static final List<GrpcTestClient> connections = new ArrayList<>();

  @BeforeAll
  static void start() {
    h = new AppHarness("grpc_instances", Map.of("SLOTKEEPER_HTTP_EVENT_LOOPS", "2"));
    for (int i = 0; i < 4; i++) {
      connections.add(new GrpcTestClient(h.app.grpcPort())); // a Vert.x and a connection each
    }
  }

  @AfterAll
  static void stop() {
    connections.forEach(GrpcTestClient::close);
    h.close();
  }

  static GrpcTestClient.Reply<StockLevel> receive(GrpcTestClient c, String key, int qty) {
    return c.call(
        InventoryServiceGrpcClient.ReceiveStock,
        ReceiveStockRequest.newBuilder()
            .setIdempotencyKey(key)
            .setSku("G-INST")
            .setQty(qty)
            .build(),
        AppHarness.CLIENT);
  }

  @Test
  void everyInstanceServesAndAKeyAnsweredOnOneConnectionIsReplayedOnAnother() throws Exception {
    assertThat(h.app.grpcInstances()).isEqualTo(2);
    int onHand = 0;
    for (int i = 0; i < connections.size(); i++) {
      GrpcTestClient.Reply<StockLevel> r = receive(connections.get(i), "g-inst-" + i, 1);
      assertThat(r.status()).as("connection %d", i).isEqualTo(GrpcStatus.OK);
      onHand++;
      assertThat(r.body().getOnHand()).isEqualTo(onHand);
    }
    long events = h.count("SELECT count(*) FROM domain_event_entry");

    // The key of connection 0's receipt, sent on connection 1 (the next instance in turn): the same
    // answer, marked as a replay, and nothing applied twice.
    GrpcTestClient.Reply<StockLevel> replay = receive(connections.get(1), "g-inst-0", 1);
    assertThat(replay.status()).isEqualTo(GrpcStatus.OK);
    assertThat(replay.headers().get("idempotent-replayed")).isEqualTo("true");
    assertThat(replay.body().getOnHand()).isEqualTo(1);
    assertThat(h.count("SELECT count(*) FROM domain_event_entry")).isEqualTo(events);
  }
}
