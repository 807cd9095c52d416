package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.app.GrpcTestClient.Reply;
import io.slotkeeper.grpc.v1.GetStockRequest;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.StockLevel;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.embedded.EmbeddedPostgresServer;
import io.slotkeeper.platform.embedded.FreePorts;
import io.slotkeeper.testing.TestInfra;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.health.v1.HealthCheckRequest;
import io.vertx.grpc.health.v1.HealthCheckResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL down, over gRPC: commands and reads are UNAVAILABLE with a message saying to retry,
 * the services' health is NOT_SERVING, and once the server is back a retry with the same key runs
 * once. The test owns its PostgreSQL (embedded, on a port of its own), so stopping it disturbs
 * nobody else.
 */
class GrpcStorageDownIT {

  static Path dataDir;
  static int port;
  static EmbeddedPostgresServer pg;
  static AppHarness h;
  static GrpcTestClient grpc;

  static final ServiceMethod<HealthCheckResponse, HealthCheckRequest> HEALTH =
      GrpcTestClient.health("Check");

  static final ServiceMethod<HealthCheckResponse, HealthCheckRequest> HEALTH_WATCH =
      GrpcTestClient.health("Watch");

  static final HealthCheckRequest INVENTORY_HEALTH =
      HealthCheckRequest.newBuilder().setService("slotkeeper.v1.InventoryService").build();
  // The server as a whole: Vert.x 5.0.7 alone answered SERVING for it without any check.
  static final HealthCheckRequest SERVER_HEALTH = HealthCheckRequest.getDefaultInstance();

  @BeforeAll
  static void start() {
    dataDir = TestInfra.tempDir("grpc-storage-down");
    port = FreePorts.find();
    pg = EmbeddedPostgresServer.start(dataDir, port);
    PostgresEndpoint db = pg.endpoint();
    h = new AppHarness("grpc_storage_down", db, Map.of());
    grpc = new GrpcTestClient(h.app.grpcPort());
  }

  @AfterAll
  static void stop() {
    if (grpc != null) {
      grpc.close();
    }
    if (h != null) {
      h.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  static ReceiveStockRequest receive(String key) {
    return ReceiveStockRequest.newBuilder()
        .setIdempotencyKey(key)
        .setSku("G-DOWN")
        .setQty(2)
        .build();
  }

  @Test
  void postgresDownIsUnavailableWithAMessageAndARetryAfterwardsRunsOnce() throws Exception {
    Reply<StockLevel> before =
        grpc.call(InventoryServiceGrpcClient.ReceiveStock, receive("g-down-0"), AppHarness.CLIENT);
    assertThat(before.status()).as(before.message()).isEqualTo(GrpcStatus.OK);
    // A watcher of the whole server (the blank name) hears each change of the storage's state.
    GrpcTestClient.Stream<HealthCheckRequest, HealthCheckResponse> watch =
        grpc.stream(HEALTH_WATCH, SERVER_HEALTH, null);
    awaitStatus(watch, HealthCheckResponse.ServingStatus.SERVING);

    pg.close();
    pg = null;
    // Connections the pools held die with the server: every call must still be UNAVAILABLE,
    // never INTERNAL or UNKNOWN.
    for (int i = 0; i < 5; i++) {
      Reply<StockLevel> command =
          grpc.call(
              InventoryServiceGrpcClient.ReceiveStock, receive("g-down-1"), AppHarness.CLIENT);
      assertThat(command.status()).as(command.message()).isEqualTo(GrpcStatus.UNAVAILABLE);
      assertThat(command.message()).isEqualTo("storage is unavailable; retry later");
      Reply<StockLevel> read =
          grpc.call(
              InventoryServiceGrpcClient.GetStock,
              GetStockRequest.newBuilder().setSku("G-DOWN").build(),
              AppHarness.CLIENT);
      assertThat(read.status()).as(read.message()).isEqualTo(GrpcStatus.UNAVAILABLE);
      assertThat(read.message()).isEqualTo("storage is unavailable; retry later");
    }
    assertThat(grpc.call(HEALTH, INVENTORY_HEALTH, null).body().getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
    assertThat(grpc.call(HEALTH, SERVER_HEALTH, null).body().getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
    awaitStatus(watch, HealthCheckResponse.ServingStatus.NOT_SERVING);

    pg = EmbeddedPostgresServer.start(dataDir, port);
    Reply<StockLevel>[] retried = new Reply[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              retried[0] =
                  grpc.call(
                      InventoryServiceGrpcClient.ReceiveStock,
                      receive("g-down-1"),
                      AppHarness.CLIENT);
              return retried[0].status() != GrpcStatus.UNAVAILABLE;
            });
    assertThat(retried[0].status()).as(retried[0].message()).isEqualTo(GrpcStatus.OK);
    assertThat(retried[0].body().getOnHand()).isEqualTo(4);
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'inventory:G-DOWN'"))
        .isEqualTo(2);
    assertThat(grpc.call(HEALTH, INVENTORY_HEALTH, null).body().getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(grpc.call(HEALTH, SERVER_HEALTH, null).body().getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    awaitStatus(watch, HealthCheckResponse.ServingStatus.SERVING);
    watch.cancel();
  }

  /** Waits up to 20 s for the watch to send {@code expected} (Vert.x checks every 2.5 s). */
  private static void awaitStatus(
      GrpcTestClient.Stream<HealthCheckRequest, HealthCheckResponse> watch,
      HealthCheckResponse.ServingStatus expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    HealthCheckResponse.ServingStatus last = null;
    while (last != expected && System.nanoTime() < deadline) {
      HealthCheckResponse next = watch.received.poll(500, TimeUnit.MILLISECONDS);
      last = next == null ? last : next.getStatus();
    }
    assertThat(last).as("the status the watch sent last").isEqualTo(expected);
  }
}
