package io.slotkeeper.api.grpc;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-side HTTP/2 PING keep-alive for the gRPC port, which Vert.x gRPC 5 does not offer
 * (eclipse-vertx/vertx-grpc#74). Every {@code interval} each connection gets a PING: the bytes keep
 * NATs and L4 load balancers from dropping an idle {@code Subscribe} stream, and a peer that does
 * not acknowledge within {@code timeout} is gone, so its connection is closed and its subscriptions
 * end instead of following the store for nobody. Like grpc-java's {@code keepAliveTime}/{@code
 * keepAliveTimeout}; a zero interval turns it off.
 */
final class Http2KeepAlive {

  private static final Logger log = LoggerFactory.getLogger(Http2KeepAlive.class);

  private final Vertx vertx;
  private final long intervalMillis;
  private final long timeoutMillis;

  Http2KeepAlive(Vertx vertx, Duration interval, Duration timeout) {
    this.vertx = vertx;
    this.intervalMillis = interval.toMillis();
    this.timeoutMillis = timeout.toMillis();
  }

  /** Starts pinging a new connection; returns what to run when it closes. */
  Runnable start(HttpConnection conn) {
    if (intervalMillis <= 0) {
      return () -> {};
    }
    Pinger pinger = new Pinger(conn);
    pinger.start();
    return pinger::closed;
  }

  /** One connection's pings; everything runs on the connection's event loop. */
  private final class Pinger {
    private final HttpConnection conn;
    private long periodic = -1;
    private long deadline = -1;
    private boolean closed;

    Pinger(HttpConnection conn) {
      this.conn = conn;
    }

    void start() {
      periodic = vertx.setPeriodic(intervalMillis, id -> ping());
    }

    void closed() {
      closed = true;
      vertx.cancelTimer(periodic);
      vertx.cancelTimer(deadline);
    }

    private void ping() {
      if (closed || deadline != -1) {
        return; // the previous PING is still unanswered: its deadline decides
      }
      try {
        deadline = vertx.setTimer(timeoutMillis, id -> giveUp());
        conn.ping(Buffer.buffer(new byte[8]))
            .onSuccess(
                ack -> {
                  vertx.cancelTimer(deadline);
                  deadline = -1;
                });
      } catch (UnsupportedOperationException e) {
        // An HTTP/1.1 connection (gRPC-Web) has no PING: nothing to keep alive this way.
        vertx.cancelTimer(deadline);
        vertx.cancelTimer(periodic);
      }
    }

    private void giveUp() {
      if (closed) {
        return;
      }
      log.info(
          "gRPC peer {} did not answer a keep-alive PING within {} ms: closing",
          conn.remoteAddress(),
          timeoutMillis);
      conn.close();
    }
  }
}
