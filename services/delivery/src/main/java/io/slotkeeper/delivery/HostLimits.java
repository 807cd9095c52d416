package io.slotkeeper.delivery;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps a flood of due slots from hammering one receiver: at most {@code perHost} deliveries in
 * flight per {@code host:port}, the others waiting in a bounded queue (at most {@code maxQueued}
 * per host, each for at most {@code maxWait}), and an optional per-schedule rate. A delivery that
 * cannot get its turn fails its attempt, which the retry policy retries later.
 */
public final class HostLimits {

  /** Given back once a delivery's request has ended; a second release does nothing. */
  public interface Permit {
    void release();
  }

  private final Vertx vertx;
  private final int perHost;
  private final int maxQueued;
  private final Duration maxWait;
  private final Map<String, Host> hosts = new HashMap<>();
  private final Map<String, Long> nextRateSlot = new HashMap<>();

  private static final class Host {
    int inFlight;
    final Deque<Promise<Permit>> waiting = new ArrayDeque<>();
  }

  public HostLimits(Vertx vertx, int perHost, int maxQueued, Duration maxWait) {
    if (perHost < 1 || maxQueued < 0) {
      throw new IllegalArgumentException("perHost must be positive, maxQueued not negative");
    }
    this.vertx = vertx;
    this.perHost = perHost;
    this.maxQueued = maxQueued;
    this.maxWait = maxWait;
  }

  /**
   * A permit for one request to {@code hostPort}, once the schedule's rate ({@code maxPerSecond}, 0
   * for none) and the host's cap allow it; failed when the host's queue is full or the wait too
   * long.
   */
  public Future<Permit> acquire(String hostPort, String schedule, int maxPerSecond) {
    long delayMillis = maxPerSecond > 0 ? rateDelay(schedule, maxPerSecond) : 0;
    if (delayMillis <= 0) {
      return forHost(hostPort);
    }
    Promise<Void> later = Promise.promise();
    vertx.setTimer(delayMillis, id -> later.complete());
    return later.future().compose(v -> forHost(hostPort));
  }

  /** Requests in flight to the host now (for tests and health). */
  public synchronized int inFlight(String hostPort) {
    Host h = hosts.get(hostPort);
    return h == null ? 0 : h.inFlight;
  }

  private synchronized long rateDelay(String schedule, int maxPerSecond) {
    long now = System.nanoTime();
    long slot = Math.max(now, nextRateSlot.getOrDefault(schedule, now));
    nextRateSlot.put(schedule, slot + 1_000_000_000L / maxPerSecond);
    return (slot - now) / 1_000_000;
  }

  private Future<Permit> forHost(String hostPort) {
    Promise<Permit> promise = Promise.promise();
    boolean now;
    synchronized (this) {
      Host h = hosts.computeIfAbsent(hostPort, k -> new Host());
      if (h.inFlight < perHost) {
        h.inFlight++;
        now = true;
      } else if (h.waiting.size() >= maxQueued) {
        return Future.failedFuture(
            "more than " + maxQueued + " deliveries wait for " + hostPort + "; try later");
      } else {
        h.waiting.addLast(promise);
        now = false;
      }
    }
    if (now) {
      promise.complete(permit(hostPort));
    } else {
      vertx.setTimer(
          Math.max(1, maxWait.toMillis()),
          id -> {
            boolean removed;
            synchronized (this) {
              Host h = hosts.get(hostPort);
              removed = h != null && h.waiting.remove(promise);
            }
            if (removed) {
              promise.tryFail("waited " + maxWait + " for a free connection to " + hostPort);
            }
          });
    }
    return promise.future();
  }

  private Permit permit(String hostPort) {
    AtomicBoolean released = new AtomicBoolean();
    return () -> {
      if (released.compareAndSet(false, true)) {
        handOver(hostPort);
      }
    };
  }

  private void handOver(String hostPort) {
    Promise<Permit> next;
    synchronized (this) {
      Host h = hosts.get(hostPort);
      next = h.waiting.pollFirst();
      if (next == null) {
        h.inFlight--;
        if (h.inFlight == 0) {
          hosts.remove(hostPort);
        }
      }
    }
    // The freed place goes to the next in line: in-flight stays the same.
    if (next != null) {
      next.complete(permit(hostPort));
    }
  }
}
