package io.slotkeeper.timers;

import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPlan;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPlanner;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans one job from its cursor to now ({@link CatchUpPlanner}): dispatches the due slots, records
 * the missed ones, advances the cursor once they are recorded, and sets a timer for the next slot's
 * exact instant. A plan whose records fail leaves the cursor where it was and tries again.
 */
final class DuePlanner {

  private static final Logger log = LoggerFactory.getLogger(DuePlanner.class);
  static final int PLAN_LIMIT = 1_000;
  private static final long RETRY_PLAN_MILLIS = 1_000;

  private final Vertx vertx;
  private final JobDefinition job;
  private final SlotClock clock;
  private final LedgerCursor cursor;
  private final SlotDispatch dispatch;
  private final SlotRecorder recorder;
  private final BooleanSupplier holdsLease;
  private final DueQueue due;
  private boolean planning;
  // The next part of a plan cut at its limit belongs to the same catch-up round.
  private boolean catchingUp;

  DuePlanner(
      Vertx vertx,
      JobDefinition job,
      SlotClock clock,
      LedgerCursor cursor,
      SlotDispatch dispatch,
      SlotRecorder recorder,
      BooleanSupplier holdsLease,
      DueQueue due) {
    this.vertx = vertx;
    this.job = job;
    this.clock = clock;
    this.cursor = cursor;
    this.dispatch = dispatch;
    this.recorder = recorder;
    this.holdsLease = holdsLease;
    this.due = due;
  }

  /** Whether a plan's missed slots are being recorded (each record has a deadline). */
  boolean planning() {
    return planning;
  }

  void stop() {
    due.cancel(this);
  }

  /** Whether the next plan is waiting in the due-queue. */
  boolean scheduled() {
    return due.pending(this);
  }

  /** Plans from the cursor to now; nothing without the lease or a loaded cursor. */
  void plan() {
    if (!holdsLease.getAsBoolean() || !cursor.loaded() || planning) {
      return;
    }
    planning = true;
    Instant now = clock.now();
    Instant from = cursor.position();
    CatchUpPlan plan =
        CatchUpPlanner.plan(
            job.schedule(), job.catchUpPolicy(), job.catchUpWindow(), from, now, PLAN_LIMIT);
    // The due slots are dispatched at once and the missed ones recorded side by side (one slot,
    // one aggregate: they do not contend): after a 10-minute downtime a 1-second job's current
    // slot does not wait behind 600 records.
    dispatch.dispatch(
        plan.toFire().stream().filter(s -> !cursor.alreadyRecorded(s)).toList(), catchingUp);
    List<Future<Void>> missed = new ArrayList<>();
    String reason =
        "outside the catch-up window (" + job.catchUpPolicy() + ", " + job.catchUpWindow() + ")";
    for (Instant slot : plan.missed()) {
      if (!cursor.alreadyRecorded(slot)) {
        missed.add(recorder.miss(slot, reason));
      }
    }
    Future.join(missed).onComplete(done -> planned(plan, from, done.cause()));
  }

  private void planned(CatchUpPlan plan, Instant from, Throwable failure) {
    planning = false;
    if (failure != null) {
      // The slots are planned again (what was recorded or fired meanwhile is then a duplicate,
      // and belongs to the same round): none is left without a record.
      log.warn(
          "job {}: recording missed slots failed, planning them again: {}", job.name(), failure);
      catchingUp = true;
      due.schedule(this, RETRY_PLAN_MILLIS, this::plan);
      return;
    }
    cursor.advance(plan.resumeAfter().orElse(latest(plan, from)));
    catchingUp = !plan.complete();
    if (catchingUp) {
      vertx.runOnContext(v -> plan());
    } else {
      scheduleNext();
    }
  }

  private static Instant latest(CatchUpPlan plan, Instant from) {
    Instant latest = from;
    for (Instant t : plan.toFire()) {
      latest = t.isAfter(latest) ? t : latest;
    }
    for (Instant t : plan.missed()) {
      latest = t.isAfter(latest) ? t : latest;
    }
    return latest;
  }

  private void scheduleNext() {
    due.cancel(this);
    job.schedule()
        .nextAfter(cursor.position())
        .ifPresent(
            next -> {
              long delay = Math.max(1, Duration.between(clock.now(), next).toMillis());
              due.schedule(this, delay, this::plan);
            });
  }
}
