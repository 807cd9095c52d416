package io.slotkeeper.timers;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * The cursor loads of an engine's timers, a bounded number at a time: a partition gained with
 * hundreds of schedules reads their cursors a few at a time instead of taking every connection of
 * the pool at once. A timer is queued at most once until its load ends.
 */
final class CursorLoads {

  private final int limit;
  private final Deque<ScheduleTimer> waiting = new ArrayDeque<>();
  private final Set<ScheduleTimer> queued = new HashSet<>();
  private int running;

  CursorLoads(int limit) {
    this.limit = limit;
  }

  /** Loads the timer's cursor when a turn is free (unless it is queued or loading already). */
  void submit(ScheduleTimer timer) {
    if (queued.add(timer)) {
      waiting.add(timer);
      next();
    }
  }

  /** Loads waiting or running. */
  int pending() {
    return queued.size();
  }

  private void next() {
    while (running < limit && !waiting.isEmpty()) {
      ScheduleTimer timer = waiting.poll();
      running++;
      // load() never throws: its failure is the timer's fault, counted by the timer.
      timer
          .load()
          .onComplete(
              done -> {
                running--;
                queued.remove(timer);
                next();
              });
    }
  }
}
