package io.slotkeeper.api.grpc;

import com.google.protobuf.Descriptors;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.health.HealthService;
import io.vertx.grpc.health.HealthServiceOptions;
import io.vertx.grpc.health.handler.GrpcHealthCheckV1Handler;
import io.vertx.grpc.health.handler.GrpcHealthListV1Handler;
import io.vertx.grpc.health.handler.GrpcHealthWatchV1Handler;
import io.vertx.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.Service;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The gRPC health checking protocol ({@code grpc.health.v1.Health}: Check, Watch, List) on Vert.x's
 * handlers, with one change: the blank service name, the server as a whole and what most probes ask
 * for, runs the storage check like every named service. Vert.x 5.0.7's handlers answer SERVING for
 * it without running any check, so a probe of the blank name kept routing traffic to an instance
 * whose PostgreSQL was gone.
 */
final class StorageHealthService implements Service {

  private final Vertx vertx;
  private final Supplier<Future<Boolean>> storage;
  private final Map<String, Supplier<Future<Boolean>>> checks = new ConcurrentHashMap<>();
  // Vert.x's own service, for the protocol's name and descriptor (server reflection lists them).
  private final Service protocol;

  /** Every service of {@code services}, and the blank name, answer by {@code storage}. */
  StorageHealthService(Vertx vertx, Supplier<Future<Boolean>> storage, Iterable<Service> services) {
    this.vertx = vertx;
    this.storage = storage;
    this.protocol = HealthService.create(vertx);
    services.forEach(s -> checks.put(s.name().fullyQualifiedName(), storage));
  }

  @Override
  public ServiceName name() {
    return protocol.name();
  }

  @Override
  public Descriptors.ServiceDescriptor descriptor() {
    return protocol.descriptor();
  }

  @Override
  public void bind(GrpcServer server) {
    server.callHandler(
        GrpcHealthCheckV1Handler.SERVICE_METHOD,
        new GrpcHealthCheckV1Handler(server, checks) {
          @Override
          protected Future<ServingStatus> checkStatus(String service) {
            return isBlank(service) ? overall() : super.checkStatus(service);
          }
        });
    server.callHandler(
        GrpcHealthWatchV1Handler.SERVICE_METHOD,
        new GrpcHealthWatchV1Handler(vertx, server, checks, new HealthServiceOptions()) {
          @Override
          protected Future<ServingStatus> checkStatus(String service) {
            return isBlank(service) ? overall() : super.checkStatus(service);
          }
        });
    server.callHandler(
        GrpcHealthListV1Handler.SERVICE_METHOD, new GrpcHealthListV1Handler(server, checks));
  }

  private static boolean isBlank(String service) {
    return service == null || service.isBlank();
  }

  /** The server's status: the storage check's, NOT_SERVING when the check itself fails. */
  private Future<ServingStatus> overall() {
    return storage
        .get()
        .map(up -> Boolean.TRUE.equals(up) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING)
        .otherwise(ServingStatus.NOT_SERVING);
  }
}
