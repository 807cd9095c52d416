package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.timers.TimerHealth.Step;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer of one schedule, a plain object hosted by its partition ({@link Partition}) on the
 * engine's event loop: it sequences the schedule's parts ({@link LedgerCursor}, {@link DuePlanner},
 * {@link SlotDispatch}, {@link SlotRecorder}, {@link TimerHealth}) under its partition's lease. It
 * makes no Redis call and no ledger read of its own: its cursor is read in batches by {@link
 * CursorLoads} (when its partition is gained, when it is created or changed, and after a slot ended
 * without a record), pause and stalled slots for the whole partition at once.
 */
final class ScheduleTimer {

  private static final Logger log = LoggerFactory.getLogger(ScheduleTimer.class);

  private final JobDefinition job;
  private final SlotkeeperMetrics metrics;
  private final SlotClock clock;
  private final Supplier<Optional<Lease>> lease;
  private final TimerHealth health;
  private final LedgerCursor cursor;
  private final SlotDispatch dispatch;
  private final DuePlanner planner;
  // The timer of the schedule's previous definition: its fires must be answered before this one
  // reads the ledger, or they would look like holes.
  private ScheduleTimer predecessor;
  private boolean pauseKnown;
  private boolean stopped;
  // The last cursor load failed: waiting in line for a load is not being unable to plan.
  private boolean loadFailed;

  ScheduleTimer(
      Vertx vertx,
      JobDefinition job,
      SlotRunner runner,
      CommandBatcher commands,
      SlotClock clock,
      String instanceId,
      Supplier<Optional<Lease>> lease,
      DueQueue due) {
    this.job = job;
    this.metrics = runner.metrics();
    this.clock = clock;
    this.lease = lease;
    this.health = new TimerHealth(job.name(), job.schedule(), runner.metrics());
    this.cursor = new LedgerCursor(job);
    SlotRecorder recorder =
        new SlotRecorder(
            vertx, job.name(), commands, runner.metrics(), health, clock, instanceId, lease);
    this.dispatch =
        new SlotDispatch(vertx, job, runner, recorder, health, clock, lease, cursor::markStale);
    this.planner =
        new DuePlanner(
            vertx, job, clock, cursor, dispatch, recorder, () -> holds() && !stopped, due);
  }

  JobDefinition job() {
    return job;
  }

  TimerHealth health() {
    return health;
  }

  /**
   * This timer replaces {@code previous} (the schedule's definition changed at {@code now}): it
   * keeps its pause switch, waits for its fires, and plans from the change on.
   */
  void replaces(ScheduleTimer previous, Instant now) {
    predecessor = previous;
    dispatch.paused(previous.dispatch.paused());
    pauseKnown = previous.pauseKnown;
    cursor.notBefore(now);
  }

  private boolean holds() {
    return lease.get().isPresent();
  }

  /** The partition's lease was gained: the ledger, not memory, says where to resume. */
  void leaseGained(Instant now) {
    metrics.leaseChanged(job.name());
    cursor.forget();
    health.held(true, now);
  }

  /** The partition's lease is gone: queued slots stay holes for the next holder. */
  void leaseGone(Instant now) {
    cursor.forget();
    dispatch.leaseLost();
    planner.stop();
    health.held(false, now);
  }

  /** The schedule was changed or deleted, or its partition handed over: no more planning. */
  void stop() {
    stopped = true;
    planner.stop();
    dispatch.leaseLost();
    health.held(false, clock.now());
  }

  /** The partition's batched read of the pause switches. */
  void paused(boolean paused) {
    dispatch.paused(paused);
    pauseKnown = true;
  }

  /** No fire of this timer awaits the ledger's answer and none is queued. */
  boolean idle() {
    return dispatch.idle();
  }

  boolean cursorLoaded() {
    return cursor.loaded();
  }

  /** Whether the cursor must be (re)read, and can be now without mistaking fires for holes. */
  boolean wantsLoad() {
    return !stopped
        && holds()
        && cursor.wantsLoad()
        && dispatch.idle()
        && !planner.planning()
        && (predecessor == null || predecessor.idle());
  }

  /** The cursor, read in batches by {@link CursorLoads}. */
  LedgerCursor cursor() {
    return cursor;
  }

  /** Whether the pause switch was read (by the partition's upkeep or with the cursor). */
  boolean pauseKnown() {
    return pauseKnown;
  }

  /** The pause switch could not be read with the cursor: the next upkeep reads it. */
  void pauseFault(Throwable e) {
    health.fault(Step.PAUSE_STATE, e, clock.now());
  }

  /** The cursor was read: planning starts. */
  void cursorRead() {
    predecessor = null;
    loadFailed = false;
    health.maintained();
    // Stalled counts from here: a timer waiting for its load was not behind by choice.
    health.progressed(clock.now());
    planner.plan();
  }

  /** The cursor could not be read: counted here, read again at the partition's next upkeep. */
  void cursorFailed(Throwable e) {
    // Once per outage, not once per retry: thousands of schedules retry every upkeep.
    if (!loadFailed) {
      log.warn("timer of job {}: {} failed: {}", job.name(), Step.CURSOR.tag(), e.toString());
    }
    loadFailed = true;
    health.fault(Step.CURSOR, e, clock.now());
  }

  /** The upkeep's safety net: plans when nothing is scheduled (after a fault, say). */
  void planIfIdle() {
    if (cursor.loaded() && !planner.scheduled()) {
      planner.plan();
    }
  }

  /** Stalled slots the partition's batched read found for this schedule. */
  void takeOver(List<LedgerQueries.Stalled> stalled) {
    if (!stopped) {
      dispatch.takeOver(stalled);
    }
  }

  /** A step of the partition's upkeep failed for this schedule too. */
  void fault(Step step, Throwable cause) {
    health.fault(step, cause, clock.now());
  }

  /** The partition's upkeep went through: a timer that plans is no longer failing. */
  void maintained() {
    if (cursor.loaded()) {
      health.maintained();
    }
  }

  /**
   * Whether this instance cannot fire the schedule: its cursor loads kept failing for {@code
   * patience}, or it stalled (see {@link TimerHealth#unusable}).
   */
  boolean unusable(Duration patience, Instant now) {
    if (!cursor.loaded() && !loadFailed) {
      // Waiting in line for its first load (a partition just gained): neither failing nor stalled.
      health.waiting();
      return false;
    }
    return health.unusable(cursor.loaded(), patience, now);
  }
}
