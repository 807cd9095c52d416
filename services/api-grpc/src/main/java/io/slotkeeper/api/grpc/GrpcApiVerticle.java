package io.slotkeeper.api.grpc;

import io.slotkeeper.api.http.ApiOperations;
import io.slotkeeper.api.http.HttpApiDependencies;
import io.slotkeeper.api.http.auth.BearerAuth;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.Service;
import java.time.Duration;
import java.util.List;
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

  private final HttpApiDependencies deps;
  private HttpServer server;

  public GrpcApiVerticle(HttpApiDependencies deps) {
    this.deps = deps;
  }

  @Override
  public Future<?> start() {
    int port = config().getInteger("port", 9090);
    ApiOperations ops = ApiOperations.create(vertx, deps);
    GrpcCalls calls = new GrpcCalls(new BearerAuth(deps.tokens()));
    List<Service> services =
        List.of(
            OrderGrpcService.create(calls, ops.orders()),
            InventoryGrpcService.create(calls, ops.inventory()),
            RefundGrpcService.create(calls, ops.refunds()),
            JobGrpcService.create(calls, ops.jobs()),
            EventGrpcService.create(calls, vertx, deps.events()));

    GrpcServer grpc = GrpcServer.server(vertx);
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
    return vertx
        .createHttpServer(new HttpServerOptions().setPort(port).setHost("0.0.0.0"))
        .connectionHandler(keepAlive)
        .requestHandler(grpc)
        .listen()
        .onSuccess(
            s -> {
              server = s;
              log.info("gRPC API listening on port {}", s.actualPort());
            });
  }

  /** The bound port (useful when configured as 0). */
  public int actualPort() {
    return server.actualPort();
  }
}
