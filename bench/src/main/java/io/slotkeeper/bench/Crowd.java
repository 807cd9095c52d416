package io.slotkeeper.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A crowd of clients that hold connections to the service and do nothing: SSE subscribers of {@code
 * /v1/events/stream} (with a filter that matches none of the load's events, so they receive only
 * keep-alives), and keep-alive HTTP connections that made one request and then stay silent. Each is
 * a raw socket on the crowd's own event loop (not the load's: its latencies stay its own), so that
 * a thousand of them cost this process a few MiB.
 */
final class Crowd implements AutoCloseable {

  private static final int BATCH = 100;

  private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  private final NetClient client =
      vertx.createNetClient(new NetClientOptions().setConnectTimeout(10_000));
  private final String host;
  private final int port;
  private final Held subscribers = new Held();
  private final Held idle = new Held();
  private final AtomicLong bytes = new AtomicLong();

  /** The sockets of one kind that are open, and how many of them the service closed. */
  private static final class Held {
    final ConcurrentHashMap<NetSocket, Boolean> sockets = new ConcurrentHashMap<>();
    final AtomicLong closedByServer = new AtomicLong();
  }

  /** A crowd of the service at {@code baseUrl} ({@code http://host:port}). */
  Crowd(String baseUrl) {
    URI uri = URI.create(baseUrl);
    this.host = uri.getHost();
    this.port = uri.getPort();
  }

  /** Subscribers open now. */
  int subscribers() {
    return subscribers.sockets.size();
  }

  /** Idle connections open now. */
  int idle() {
    return idle.sockets.size();
  }

  /** Sockets of either kind that the service closed. */
  long closedByServer() {
    return subscribers.closedByServer.get() + idle.closedByServer.get();
  }

  /** Bytes the crowd received (SSE keep-alives, mostly). */
  long bytesReceived() {
    return bytes.get();
  }

  /**
   * Opens {@code n} SSE subscriptions with {@code token}; {@code query} is their query string (e.g.
   * {@code aggregateType=Inventory}). Returns once each has its 200 and first comment.
   */
  void subscribe(int n, String token, String query) {
    String request =
        "GET /v1/events/stream?"
            + query
            + " HTTP/1.1\r\nHost: soak\r\nAccept: text/event-stream\r\nAuthorization: Bearer "
            + token
            + "\r\n\r\n";
    // the status line, then the stream's first comment: the subscription is admitted and reading
    open(n, request, ": resuming after", subscribers);
  }

  /** Opens {@code n} connections that each ask for {@code /health/live} once and then stay idle. */
  void idleConnections(int n) {
    open(n, "GET /health/live HTTP/1.1\r\nHost: soak\r\n\r\n", "\r\n\r\n", idle);
  }

  private void open(int n, String request, String ready, Held into) {
    for (int from = 0; from < n; from += BATCH) {
      List<Future<Void>> batch = new ArrayList<>();
      for (int i = from; i < Math.min(n, from + BATCH); i++) {
        batch.add(one(request, ready, into));
      }
      Future.all(batch).await();
    }
  }

  private Future<Void> one(String request, String ready, Held into) {
    return client
        .connect(port, host)
        .compose(
            socket -> {
              Promise<Void> answered = Promise.promise();
              StringBuilder head = new StringBuilder();
              socket.handler(
                  (Buffer b) -> {
                    bytes.addAndGet(b.length());
                    if (!answered.future().isComplete()) {
                      head.append(b.toString());
                      String text = head.toString();
                      if (!text.startsWith("HTTP/1.1 200")) {
                        answered.tryFail("not 200: " + text.lines().findFirst().orElse(""));
                      } else if (text.contains(ready)) {
                        into.sockets.put(socket, true);
                        answered.tryComplete();
                      }
                    }
                  });
              socket.closeHandler(
                  v -> {
                    if (into.sockets.remove(socket) != null) {
                      into.closedByServer.incrementAndGet();
                    }
                    answered.tryFail("closed before its answer");
                  });
              socket.write(request);
              return answered.future().timeout(30, TimeUnit.SECONDS);
            });
  }

  /** Closes every socket of the crowd (not counted as closed by the service). */
  void disperse() {
    List<NetSocket> all = new ArrayList<>(subscribers.sockets.keySet());
    all.addAll(idle.sockets.keySet());
    subscribers.sockets.clear();
    idle.sockets.clear();
    Future.all(all.stream().map(NetSocket::close).toList()).await();
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
