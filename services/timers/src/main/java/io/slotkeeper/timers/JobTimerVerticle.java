package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.timers.TimerHealth.Step;
import io.slotkeeper.timers.TimerHealth.StepFault;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer of one job. Every TTL/3 its maintenance keeps the lease ({@link LeaseKeeper}), reads
 * the pause switch, loads the resume point when it has none ({@link LedgerCursor}), plans and looks
 * for stalled slots; between maintenances a timer set for the next slot plans again. The due slots
 * go to {@link SlotDispatch}. A failed step leaves the timer where the next maintenance starts
 * over, and a lease this instance cannot use (no resume point for a TTL, or stalled) is given up.
 */
public final class JobTimerVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(JobTimerVerticle.class);

  private final JobDefinition job;
  private final SlotRunner runner;
  private final CommandBatcher commands;
  private final LedgerQueries ledger;
  private final SlotClock clock;
  private final String instanceId;
  private final LeaseKeeper lease;
  private final TimerHealth health;
  private LedgerCursor cursor;
  private SlotDispatch dispatch;
  private DuePlanner planner;
  private long maintenanceTimer = -1;
  private boolean maintaining;
  private boolean standAside;

  public JobTimerVerticle(
      JobDefinition job,
      SlotRunner runner,
      CommandBatcher commands,
      RedisLeases leases,
      LedgerQueries ledger,
      SlotClock clock,
      String instanceId) {
    this.job = job;
    this.runner = runner;
    this.commands = commands;
    this.ledger = ledger;
    this.clock = clock;
    this.instanceId = instanceId;
    this.lease =
        new LeaseKeeper(job.name(), instanceId, job.leaseTtl(), leases, ledger, System::nanoTime);
    this.health = new TimerHealth(job.name(), job.schedule(), runner.metrics());
  }

  /** The lease this instance holds for the job, if any. */
  public Optional<Lease> lease() {
    return lease.lease();
  }

  /** Whether the job stalled here: lease held, no slot fired or recorded for two periods. */
  public boolean stalled() {
    return health.stalled(clock.now());
  }

  /** The timer's state for health checks. */
  public TimerHealth.Report report() {
    return health.report(clock.now());
  }

  @Override
  public Future<?> start() {
    cursor = new LedgerCursor(vertx, job, ledger, clock);
    SlotRecorder recorder =
        new SlotRecorder(
            vertx, job.name(), commands, runner.metrics(), health, clock, instanceId, lease::lease);
    dispatch =
        new SlotDispatch(
            vertx, job, runner, recorder, health, clock, lease::lease, cursor::markStale);
    planner =
        new DuePlanner(
            vertx, job, clock, cursor, dispatch, recorder, () -> lease.lease().isPresent());
    long period = LeaseKeeper.upkeepPeriod(job.leaseTtl());
    vertx.runOnContext(v -> maintain());
    maintenanceTimer =
        vertx.setPeriodic(LeaseKeeper.phase(job.name(), period), period, id -> maintain());
    log.info(
        "timer of job {} started on {} (lease TTL {})", job.name(), instanceId, job.leaseTtl());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(maintenanceTimer);
    planner.stop();
    return lease.release().otherwiseEmpty();
  }

  /** Lease upkeep, pause state, resume point, planning and takeover; a failed step ends it. */
  private void maintain() {
    if (maintaining) {
      return;
    }
    maintaining = true;
    keepLease()
        .compose(held -> held ? refreshPause().map(true) : Future.succeededFuture(false))
        .compose(held -> held ? loadCursorIfNeeded().map(true) : Future.succeededFuture(false))
        .compose(held -> held ? planAndTakeOver() : Future.succeededFuture())
        .onSuccess(v -> health.maintained())
        .onFailure(this::fault)
        // Belt and braces: every step has its own deadline, so this never waits for ever.
        .timeout(4 * LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onComplete(
            done -> {
              maintaining = false;
              giveUpUnusableLease();
            });
  }

  private Future<Boolean> keepLease() {
    if (standAside) {
      // Gave the lease up last time: leave the next try to another instance.
      standAside = false;
      return Future.succeededFuture(false);
    }
    boolean before = lease.lease().isPresent();
    return lease
        .keep()
        .map(
            kept -> {
              if (kept.gained()) {
                runner.metrics().leaseChanged(job.name());
                // Read where to resume once the fires of any earlier lease are answered.
                cursor.forget();
              } else if (before && !kept.held()) {
                leaseGone();
              }
              health.held(kept.held(), clock.now());
              return kept.held();
            });
  }

  private Future<Void> refreshPause() {
    // A fault here keeps the last known switch: the timer goes on planning.
    return ledger
        .paused(job.name())
        .timeout(LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onSuccess(dispatch::paused)
        .onFailure(e -> health.fault(Step.PAUSE_STATE, e, clock.now()))
        .<Void>mapEmpty()
        .otherwiseEmpty();
  }

  private Future<Void> loadCursorIfNeeded() {
    // Only once every fire of this timer has its answer: a fire still queued would look like a
    // hole and be sent a second time.
    if (!cursor.wantsLoad() || !dispatch.idle() || planner.planning()) {
      return Future.succeededFuture();
    }
    return cursor
        .load()
        .recover(e -> Future.failedFuture(new StepFault(job.name(), Step.CURSOR, e)));
  }

  private Future<Void> planAndTakeOver() {
    planner.plan();
    Optional<Lease> held = lease.lease();
    if (!cursor.loaded() || held.isEmpty()) {
      return Future.succeededFuture();
    }
    return ledger
        .stalled(job, held.get().fencingToken(), instanceId, clock.now())
        .timeout(LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .recover(e -> Future.failedFuture(new StepFault(job.name(), Step.TAKEOVER, e)))
        .onSuccess(dispatch::takeOver)
        .mapEmpty();
  }

  /** A step failed: counted and remembered; the next maintenance starts over. */
  private void fault(Throwable e) {
    boolean named = e instanceof StepFault;
    Step step = named ? ((StepFault) e).step : Step.CURSOR;
    Throwable cause = named && e.getCause() != null ? e.getCause() : e;
    health.fault(step, cause, clock.now());
    log.warn("timer of job {}: {} failed: {}", job.name(), step.tag(), cause.toString());
    if (lease.lease().isEmpty()) {
      leaseGone();
      health.held(false, clock.now());
    }
  }

  private void leaseGone() {
    cursor.forget();
    dispatch.leaseLost();
  }

  /**
   * A lease is held only by an instance able to fire: without a resume point for a whole TTL, or
   * with the job stalled, it is released (and this instance sits the next try out) so that another
   * instance can take the job over.
   */
  private void giveUpUnusableLease() {
    Instant now = clock.now();
    if (lease.lease().isEmpty() || !health.unusable(cursor.loaded(), job.leaseTtl(), now)) {
      return;
    }
    log.warn("job {}: giving the lease up on {}: it cannot fire here", job.name(), instanceId);
    standAside = true;
    leaseGone();
    health.held(false, now);
    lease.release().onFailure(e -> health.fault(Step.LEASE_RELEASE, e, clock.now()));
  }
}
