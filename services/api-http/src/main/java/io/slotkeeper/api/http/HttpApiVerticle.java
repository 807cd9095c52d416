package io.slotkeeper.api.http;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves the HTTP API on {@code config().port}; its one responsibility is HTTP. */
public final class HttpApiVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(HttpApiVerticle.class);

  private final HttpApiDependencies deps;
  private HttpServer server;

  public HttpApiVerticle(HttpApiDependencies deps) {
    this.deps = deps;
  }

  @Override
  public Future<?> start() {
    int port = config().getInteger("port", 8080);
    return vertx
        .createHttpServer()
        .requestHandler(ApiRouter.create(vertx, deps))
        .listen(port, "0.0.0.0")
        .onSuccess(
            s -> {
              server = s;
              log.info("HTTP API listening on port {}", s.actualPort());
            });
  }

  /** The bound port (useful when configured as 0). */
  public int actualPort() {
    return server.actualPort();
  }
}
