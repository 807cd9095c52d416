package io.slotkeeper.api.http.limits;

import io.slotkeeper.api.http.problem.HttpProblems;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The HTTP server's clocks on slow clients (one instance per verticle, so everything runs on its
 * event loop): a new connection must complete its first request's headers within {@code header}
 * (else it is closed: slowloris), and a request's body must arrive in full within {@code body} of
 * its headers (else 408 problem+json and the connection is closed). Idle connections are the
 * server's idle timeout's.
 */
public final class RequestTimeouts {

  private final Vertx vertx;
  private final long headerMillis;
  private final long bodyMillis;
  private final Map<HttpConnection, Long> awaitingHeaders = new HashMap<>();

  public RequestTimeouts(Vertx vertx, Duration header, Duration body) {
    this.vertx = vertx;
    this.headerMillis = header.toMillis();
    this.bodyMillis = body.toMillis();
  }

  /** Starts a new connection's header clock; returns what to run when it closes. */
  public Runnable opened(HttpConnection conn) {
    awaitingHeaders.put(
        conn,
        vertx.setTimer(
            headerMillis,
            id -> {
              awaitingHeaders.remove(conn);
              conn.close();
            }));
    return () -> stopHeaderClock(conn);
  }

  /** The request handler of the server: stops the header clock, then hands the request on. */
  public Handler<HttpServerRequest> headersRead(Handler<HttpServerRequest> next) {
    return request -> {
      stopHeaderClock(request.connection());
      next.handle(request);
    };
  }

  /** A route handler (first on the router) that bounds the time the body may take. */
  public void bodyClock(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    if (!request.isEnded()) {
      long timer =
          vertx.setTimer(
              bodyMillis,
              id -> {
                if (!request.isEnded() && !ctx.response().ended()) {
                  ctx.response().putHeader("Connection", "close");
                  HttpProblems.send(
                      ctx,
                      new ApiProblem(
                          408,
                          "Request Timeout",
                          "the body did not arrive within " + bodyMillis + " ms"));
                  request.connection().close();
                }
              });
      ctx.addEndHandler(v -> vertx.cancelTimer(timer));
    }
    ctx.next();
  }

  private void stopHeaderClock(HttpConnection conn) {
    Long timer = awaitingHeaders.remove(conn);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
  }
}
