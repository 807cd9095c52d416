package io.slotkeeper.timers;

import io.vertx.core.Vertx;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The due times of every schedule an engine runs, in one priority queue with one Vert.x timer armed
 * for its head: thousands of schedules cost one timer, not one each. Each owner (a schedule's
 * planner) has at most one pending entry; scheduling again replaces it. Used on its verticle's
 * event loop only. Deadlines are monotonic ({@code System.nanoTime}), so a settable test clock
 * moves slots, not the wait.
 */
final class DueQueue {

  private static final Logger log = LoggerFactory.getLogger(DueQueue.class);

  private record Entry(long dueNanos, long sequence, Object owner, Runnable action) {}

  private final Vertx vertx;
  private final LongSupplier nanos;
  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>(
          Comparator.comparingLong(Entry::dueNanos).thenComparingLong(Entry::sequence));
  // The live entry of each owner; an entry of the queue that is not here was replaced or
  // cancelled, and is dropped when it reaches the head.
  private final Map<Object, Entry> pending = new HashMap<>();
  private long sequence;
  private long timer = -1;
  private long armedFor = Long.MAX_VALUE;

  DueQueue(Vertx vertx, LongSupplier nanos) {
    this.vertx = vertx;
    this.nanos = nanos;
  }

  /** Runs {@code action} in {@code delayMillis}, replacing the owner's pending entry. */
  void schedule(Object owner, long delayMillis, Runnable action) {
    Entry e =
        new Entry(
            nanos.getAsLong() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMillis)),
            sequence++,
            owner,
            action);
    pending.put(owner, e);
    queue.add(e);
    arm();
  }

  /** Drops the owner's pending entry, if any. */
  void cancel(Object owner) {
    pending.remove(owner);
  }

  /** Whether the owner has an entry waiting. */
  boolean pending(Object owner) {
    return pending.containsKey(owner);
  }

  /** Entries waiting, for tests and metrics. */
  int size() {
    return pending.size();
  }

  /** Stops the timer; nothing runs afterwards. */
  void close() {
    pending.clear();
    queue.clear();
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void arm() {
    dropReplaced();
    Entry head = queue.peek();
    if (head == null || head.dueNanos >= armedFor) {
      return;
    }
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    armedFor = head.dueNanos;
    long delay = Math.max(1, TimeUnit.NANOSECONDS.toMillis(head.dueNanos - nanos.getAsLong()));
    timer = vertx.setTimer(delay, id -> fire());
  }

  private void fire() {
    timer = -1;
    armedFor = Long.MAX_VALUE;
    // Vert.x timers have millisecond resolution: what falls due within it runs now.
    long now = nanos.getAsLong() + TimeUnit.MILLISECONDS.toNanos(1);
    Entry head;
    while ((head = queue.peek()) != null && head.dueNanos <= now) {
      queue.poll();
      if (pending.get(head.owner) != head) {
        continue;
      }
      pending.remove(head.owner);
      try {
        head.action.run();
      } catch (RuntimeException e) {
        log.warn("a due action failed: {}", e.toString(), e);
      }
    }
    arm();
  }

  private void dropReplaced() {
    Entry head;
    while ((head = queue.peek()) != null && pending.get(head.owner) != head) {
      queue.poll();
    }
  }
}
