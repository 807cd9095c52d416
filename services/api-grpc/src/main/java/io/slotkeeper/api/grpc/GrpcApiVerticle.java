package io.slotkeeper.api.grpc;

import io.slotkeeper.operations.ApiOperations;
import io.slotkeeper.operations.OperationsDependencies;
import io.slotkeeper.operations.auth.TokenCheck;
import io.slotkeeper.platform.net.ConnectionGate;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.Service;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the gRPC API on {@code config().port} (HTTP/2 cleartext): orders, inventory, refunds, jobs
 * and events over the same operation layer as the HTTP API, plus the gRPC health checking protocol
 * and server reflection (v1 and v1alpha), with HTTP/2 PING keep-alive ({@code
 * config().keepAliveMillis}, {@code keepAliveTimeoutMillis}; see {@link Http2KeepAlive}). Its one
 * responsibility is gRPC.
 */
public final class GrpcApiVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(GrpcApiVerticle.class);

  private final OperationsDependencies deps;
  private final AtomicInteger openConnections;
  private HttpServer server;

  /** One instance of the API; {@code openConnections} is shared by all instances on the port. */
  public GrpcApiVerticle(OperationsDependencies deps, AtomicInteger openConnections) {
    this.deps = deps;
    this.openConnections = openConnections;
  }

  @Override
  public Future<?> start() {
    int port = config().getInteger("port", 9090);
    ApiOperations ops = ApiOperations.create(vertx, deps);
    TokenCheck auth = new TokenCheck(deps.tokens());
    GrpcCalls calls = new GrpcCalls(auth);
    List<Service> services =
        List.of(
            OrderGrpcService.create(calls, ops.orders()),
            InventoryGrpcService.create(calls, ops.inventory()),
            RefundGrpcService.create(calls, ops.refunds()),
            JobGrpcService.create(calls, ops.jobs()),
            ScheduleGrpcService.create(calls, ops.schedules()),
            EventGrpcService.create(calls, vertx, deps.events()));

    int maxMessageBytes = config().getInteger("maxMessageBytes", 256 * 1024);
    GrpcServer grpc =
        GrpcServer.server(vertx, new GrpcServerOptions().setMaxMessageSize(maxMessageBytes));
    services.forEach(grpc::addService);
    // SERVING while PostgreSQL (every operation's store) answers, for each service and the blank
    // name alike.
    Supplier<Future<Boolean>> storage =
        () -> deps.pool().query("SELECT 1").execute().map(rows -> true).otherwise(false);
    grpc.addService(new StorageHealthService(vertx, storage, services));
    ReflectionV1Alpha.bind(grpc);

    Http2KeepAlive keepAlive =
        new Http2KeepAlive(
            vertx,
            Duration.ofMillis(config().getLong("keepAliveMillis", 30_000L)),
            Duration.ofMillis(config().getLong("keepAliveTimeoutMillis", 20_000L)));
    HttpServerOptions options =
        new HttpServerOptions()
            .setPort(port)
            .setHost(config().getString("host", "0.0.0.0"))
            .setInitialSettings(
                new Http2Settings()
                    .setMaxConcurrentStreams(config().getInteger("maxConcurrentStreams", 100)));
    return vertx
        .createHttpServer(options)
        .connectionHandler(
            ConnectionGate.of(
                openConnections,
                config().getInteger("maxConnections", 256),
                "gRPC API",
                keepAlive::start))
        .requestHandler(new GrpcGuard(grpc, auth, maxMessageBytes))
        .listen()
        .onSuccess(
            s -> {
              server = s;
              log.info("gRPC API listening on {}:{}", options.getHost(), s.actualPort());
            });
  }

  /** The bound port (useful when configured as 0). */
  public int actualPort() {
    return server.actualPort();
  }
}
