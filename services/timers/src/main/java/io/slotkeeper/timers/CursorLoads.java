package io.slotkeeper.timers;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.slots.LedgerQueries;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The cursor loads of an engine's timers, in batches ({@link LedgerCursor#loadAll}) and a bounded
 * number of batches at a time: a partition gained with thousands of schedules reads their pause
 * switches and cursors with a few statements per {@value #BATCH} schedules, without taking every
 * connection of the pool. A timer is queued at most once until its load ends.
 */
final class CursorLoads {

  // Timers read together; bounds a batch's rows (LedgerCursor.BATCH_SCAN_LIMIT each at most).
  static final int BATCH = 200;

  private final Vertx vertx;
  private final LedgerQueries ledger;
  private final SlotClock clock;
  private final int limit;
  private final SlotkeeperMetrics metrics;
  private final Deque<ScheduleTimer> waiting = new ArrayDeque<>();
  private final Set<ScheduleTimer> queued = new HashSet<>();
  private volatile int pending;
  private int running;
  private boolean turnAsked;

  /**
   * @param limit batches read at once
   * @param metrics where each batch's duration is recorded
   */
  CursorLoads(
      Vertx vertx, LedgerQueries ledger, SlotClock clock, int limit, SlotkeeperMetrics metrics) {
    this.vertx = vertx;
    this.ledger = ledger;
    this.clock = clock;
    this.limit = limit;
    this.metrics = metrics;
  }

  /** Loads the timer's cursor when a turn is free (unless it is queued or loading already). */
  void submit(ScheduleTimer timer) {
    if (queued.add(timer)) {
      pending = queued.size();
      waiting.add(timer);
      // On the loop's next turn: the timers of a partition gained now share batches.
      if (!turnAsked) {
        turnAsked = true;
        vertx.runOnContext(
            v -> {
              turnAsked = false;
              next();
            });
      }
    }
  }

  /** Loads waiting or running (read by scrapes on other threads). */
  int pending() {
    return pending;
  }

  private void next() {
    while (running < limit && !waiting.isEmpty()) {
      List<ScheduleTimer> batch = new ArrayList<>();
      while (batch.size() < BATCH && !waiting.isEmpty()) {
        batch.add(waiting.poll());
      }
      running++;
      load(batch)
          .onComplete(
              done -> {
                running--;
                batch.forEach(queued::remove);
                pending = queued.size();
                next();
              });
    }
  }

  /** Never fails: a failed load is the timers' fault, counted by each of them. */
  private Future<Void> load(List<ScheduleTimer> batch) {
    // Checked now, not when queued: a timer may have stopped, lost its lease or started firing.
    List<ScheduleTimer> due = batch.stream().filter(ScheduleTimer::wantsLoad).toList();
    if (due.isEmpty()) {
      return Future.succeededFuture();
    }
    long started = System.nanoTime();
    return pauses(due)
        .compose(
            v ->
                LedgerCursor.loadAll(
                    vertx, ledger, clock, due.stream().map(ScheduleTimer::cursor).toList()))
        .onComplete(done -> metrics.cursorLoad(done.succeeded(), System.nanoTime() - started))
        .onSuccess(v -> due.forEach(ScheduleTimer::cursorRead))
        .onFailure(e -> due.forEach(t -> t.cursorFailed(e)))
        .otherwiseEmpty();
  }

  /** The pause switches no batched upkeep read yet; a fault leaves them unknown and goes on. */
  private Future<Void> pauses(List<ScheduleTimer> due) {
    List<ScheduleTimer> unknown = due.stream().filter(t -> !t.pauseKnown()).toList();
    if (unknown.isEmpty()) {
      return Future.succeededFuture();
    }
    return ledger
        .pausedAmong(unknown.stream().map(t -> t.job().name()).toList())
        .timeout(LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onSuccess(paused -> unknown.forEach(t -> t.paused(paused.contains(t.job().name()))))
        .onFailure(e -> unknown.forEach(t -> t.pauseFault(e)))
        .<Void>mapEmpty()
        .otherwiseEmpty();
  }
}
