package io.slotkeeper.timers;

import io.slotkeeper.domain.command.CommandBatcher;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.timers.TimerHealth.Step;
import io.slotkeeper.timers.TimerHealth.StepFault;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
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
  private Instant unableSince;
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
    dispatch =
        new SlotDispatch(
            vertx,
            job,
            runner,
            commands,
            health,
            clock,
            instanceId,
            lease::lease,
            cursor::markStale);
    planner = new DuePlanner(vertx, job, clock, cursor, dispatch, () -> lease.lease().isPresent());
    long period = maintenancePeriod();
    vertx.runOnContext(v -> maintain());
    maintenanceTimer = vertx.setPeriodic(phase(job.name(), period), period, id -> maintain());
    log.info(
        "timer of job {} started on {} (lease TTL {})", job.name(), instanceId, job.leaseTtl());
    return Future.succeededFuture();
  }

  private long maintenancePeriod() {
    return Math.max(100, job.leaseTtl().toMillis() / 3);
  }

  /**
   * The delay of the job's first periodic maintenance (the first one runs at once): spread over one
   * period by the job's name, so that the lease renewals and ledger reads of many jobs started
   * together do not all hit Redis and PostgreSQL in the same millisecond, every period (200 jobs in
   * step overflowed the Redis client's wait queue, renewals failed, leases expired and the slots of
   * the gap were recorded as missed). From the name, not random: the same on every start.
   */
  static long phase(String job, long period) {
    // A digest, not String.hashCode: names differing in their last characters (job-001, job-002)
    // would otherwise land a few milliseconds apart.
    long digest =
        UUID.nameUUIDFromBytes(job.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits();
    return 1 + Math.floorMod(digest, period);
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
                log.atInfo()
                    .addKeyValue("job", job.name())
                    .addKeyValue("instance", instanceId)
                    .addKeyValue("fencingToken", lease.lease().map(Lease::fencingToken).orElse(0L))
                    .log("lease acquired");
                // Read where to resume once the fires of any earlier lease are answered.
                cursor.forget();
              } else if (before && !kept.held()) {
                log.warn("job {}: lost lease on {}", job.name(), instanceId);
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
    return cursor.load().recover(e -> Future.failedFuture(new StepFault(Step.CURSOR, e)));
  }

  private Future<Void> planAndTakeOver() {
    planner.plan();
    if (!cursor.loaded()) {
      return Future.succeededFuture();
    }
    Lease held = lease.lease().orElse(null);
    if (held == null) {
      return Future.succeededFuture();
    }
    Instant firedBefore = clock.now().minus(job.leaseTtl());
    // The longest retry delay this job uses: a FAILED slot older than that lost its retry.
    Instant failedBefore =
        firedBefore.minus(
            job.retryPolicy().delayBefore(job.retryPolicy().maxAttempts()).orElse(Duration.ZERO));
    return ledger
        .stalled(
            job.name(),
            held.fencingToken(),
            firedBefore,
            job.retryPolicy().maxAttempts(),
            failedBefore)
        .timeout(LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .recover(e -> Future.failedFuture(new StepFault(Step.TAKEOVER, e)))
        .map(
            stalled -> {
              dispatch.takeOver(stalled);
              return null;
            });
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
    if (lease.lease().isEmpty()) {
      unableSince = null;
      return;
    }
    Instant now = clock.now();
    unableSince = cursor.loaded() ? null : unableSince == null ? now : unableSince;
    boolean unable =
        unableSince != null && Duration.between(unableSince, now).compareTo(job.leaseTtl()) > 0;
    if (!unable && !health.stalled(now)) {
      return;
    }
    log.warn(
        "job {}: giving the lease up on {}: {}",
        job.name(),
        instanceId,
        unable ? "no resume point since " + unableSince : "stalled");
    unableSince = null;
    standAside = true;
    leaseGone();
    health.held(false, now);
    lease.release().onFailure(e -> health.fault(Step.LEASE_RELEASE, e, clock.now()));
  }
}
