package io.slotkeeper.platform.net;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps the open connections of one server (shared by all its verticle instances): a connection
 * beyond {@code max} is closed at once, so idle sockets cannot use up the process's file
 * descriptors and starve every other client. Owns the connection's close handler (Vert.x keeps one
 * per connection): {@code next} sets up what else a connection needs and returns what to run when
 * it closes.
 */
public final class ConnectionGate implements Handler<HttpConnection> {

  private static final Logger log = LoggerFactory.getLogger(ConnectionGate.class);

  private final AtomicInteger open;
  private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - 120_000_000_000L);
  private final int max;
  private final String server;
  private final Function<HttpConnection, Runnable> next;

  private ConnectionGate(
      AtomicInteger open, int max, String server, Function<HttpConnection, Runnable> next) {
    this.open = open;
    this.max = max;
    this.server = server;
    this.next = next;
  }

  /** A gate counting in {@code open}, shared by every instance of the server. */
  public static ConnectionGate of(
      AtomicInteger open, int max, String server, Function<HttpConnection, Runnable> next) {
    return new ConnectionGate(open, max, server, next);
  }

  @Override
  public void handle(HttpConnection conn) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      long now = System.nanoTime();
      long last = lastWarning.get();
      // At most one line a minute: refusing connections must not become a way to fill the logs.
      if (now - last > 60_000_000_000L && lastWarning.compareAndSet(last, now)) {
        log.warn("{}: {} connections open (the limit): closing new ones", server, max);
      }
      conn.close();
      return;
    }
    Runnable closed = next.apply(conn);
    conn.closeHandler(
        v -> {
          open.decrementAndGet();
          closed.run();
        });
  }
}
