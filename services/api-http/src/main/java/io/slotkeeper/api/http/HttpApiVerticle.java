package io.slotkeeper.api.http;

import io.slotkeeper.api.http.limits.InvalidRequests;
import io.slotkeeper.api.http.limits.RequestChecks;
import io.slotkeeper.api.http.limits.RequestTimeouts;
import io.slotkeeper.platform.net.ConnectionGate;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the HTTP API on {@code config().port} and {@code config().host}, with the limits on
 * clients of {@code config()} ({@code h2c}, {@code maxConnections}, {@code idleTimeoutMillis},
 * {@code headerTimeoutMillis}, {@code bodyTimeoutMillis}); its one responsibility is HTTP.
 */
public final class HttpApiVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(HttpApiVerticle.class);

  private final HttpApiDependencies deps;
  private final AtomicInteger openConnections;
  private HttpServer server;

  /** One instance of the API; {@code openConnections} is shared by all instances on the port. */
  public HttpApiVerticle(HttpApiDependencies deps, AtomicInteger openConnections) {
    this.deps = deps;
    this.openConnections = openConnections;
  }

  @Override
  public Future<?> start() {
    JsonObject c = config();
    int port = c.getInteger("port", 8080);
    RequestTimeouts timeouts =
        new RequestTimeouts(
            vertx,
            Duration.ofMillis(c.getLong("headerTimeoutMillis", 10_000L)),
            Duration.ofMillis(c.getLong("bodyTimeoutMillis", 30_000L)));
    HttpServerOptions options =
        new HttpServerOptions()
            .setPort(port)
            .setHost(c.getString("host", "0.0.0.0"))
            // Off by default: h2c's protocol detection holds a new socket back from the
            // connection handler (and so from the cap and the header clock) until its first bytes.
            .setHttp2ClearTextEnabled(c.getBoolean("h2c", false))
            .setIdleTimeout((int) c.getLong("idleTimeoutMillis", 120_000L).longValue())
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    return vertx
        .createHttpServer(options)
        .connectionHandler(
            ConnectionGate.of(
                openConnections, c.getInteger("maxConnections", 768), "HTTP API", timeouts::opened))
        .invalidRequestHandler(new InvalidRequests())
        .requestHandler(
            timeouts.headersRead(RequestChecks.before(ApiRouter.create(vertx, deps, timeouts))))
        .listen()
        .onSuccess(
            s -> {
              server = s;
              log.info("HTTP API listening on {}:{}", options.getHost(), s.actualPort());
            });
  }

  /** The bound port (useful when configured as 0). */
  public int actualPort() {
    return server.actualPort();
  }
}
