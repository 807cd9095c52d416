package io.slotkeeper.timers;

import io.slotkeeper.domain.command.CommandBatcher;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.slots.SlotCommand.MissSlot;
import io.slotkeeper.events.slots.SlotCommand.SkipSlot;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.metrics.SlotkeeperMetrics.SlotOutcome;
import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPlan;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPlanner;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer of one job: holds (or waits for) the job's lease, turns due slots into fires, applies
 * the job's catch-up, overlap and retry policies, and takes over slots whose runner died. Several
 * instances run this verticle for the same job; the lease keeps the work on one of them and the
 * slot ledger makes a second fire of a slot a recorded duplicate.
 */
public final class JobTimerVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(JobTimerVerticle.class);
  static final int PLAN_LIMIT = 1_000;
  // Records read when looking for holes: a day of a 1-second job.
  static final int HOLE_SCAN_LIMIT = 86_400;
  private static final long RETRY_PLAN_MILLIS = 1_000;

  private final JobDefinition job;
  private final SlotRunner runner;
  private final CommandBatcher commands;
  private final RedisLeases leases;
  private final LedgerQueries ledger;
  private final SlotClock clock;
  private final String instanceId;
  private final AtomicReference<Lease> lease = new AtomicReference<>();

  private Instant cursor;
  private boolean cursorLoaded;
  private boolean planning;
  private int running;
  private final Deque<Instant> buffered = new ArrayDeque<>();
  private long dueTimer = -1;
  private long maintenanceTimer = -1;
  private boolean paused;
  private boolean maintaining;
  // Slots after the cursor that already have a record (see loadCursor); skipped when planned.
  private NavigableSet<Instant> recordedAhead = new TreeSet<>();
  // A fire failed: its slot has no record; the ledger is scanned for holes again.
  private boolean rescan;

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
    this.leases = leases;
    this.ledger = ledger;
    this.clock = clock;
    this.instanceId = instanceId;
  }

  /** The lease this instance holds for the job, if any. */
  public Optional<Lease> lease() {
    return Optional.ofNullable(lease.get());
  }

  @Override
  public Future<?> start() {
    long period = Math.max(100, job.leaseTtl().toMillis() / 3);
    vertx.runOnContext(v -> maintain());
    maintenanceTimer = vertx.setPeriodic(phase(job.name(), period), period, id -> maintain());
    log.info(
        "timer of job {} started on {} (lease TTL {})", job.name(), instanceId, job.leaseTtl());
    return Future.succeededFuture();
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
    vertx.cancelTimer(dueTimer);
    Lease held = lease.getAndSet(null);
    return held == null ? Future.succeededFuture() : leases.release(held).otherwiseEmpty();
  }

  /** Lease upkeep, pause state, catch-up and takeover of stalled slots. */
  private void maintain() {
    if (maintaining) {
      return;
    }
    maintaining = true;
    ensureLease()
        .compose(
            holder ->
                holder
                    ? ledger.paused(job.name()).map(p -> paused = p).map(true)
                    : Future.succeededFuture(false))
        .compose(
            holder -> {
              if (holder && rescan && running == 0 && !planning) {
                rescan = false;
                cursorLoaded = false;
                return loadCursor().map(holder);
              }
              return Future.succeededFuture(holder);
            })
        .onSuccess(
            holder -> {
              if (holder) {
                plan();
                recoverStalled();
              }
            })
        .onFailure(
            e -> log.warn("timer of job {}: maintenance failed: {}", job.name(), e.toString()))
        .onComplete(done -> maintaining = false);
  }

  private Future<Boolean> ensureLease() {
    Lease held = lease.get();
    if (held != null) {
      return leases
          .renew(held, job.leaseTtl())
          .map(
              ok -> {
                if (!ok) {
                  log.warn(
                      "job {}: lost lease (token {}) on {}",
                      job.name(),
                      held.fencingToken(),
                      instanceId);
                  lease.compareAndSet(held, null);
                  cursorLoaded = false;
                }
                return ok;
              });
    }
    return ledger
        .highestToken(job.name())
        .compose(floor -> leases.acquire(job.name(), instanceId, job.leaseTtl(), floor))
        .compose(
            granted -> {
              if (granted.isEmpty()) {
                return Future.succeededFuture(false);
              }
              lease.set(granted.get());
              runner.metrics().leaseChanged(job.name());
              log.atInfo()
                  .addKeyValue("job", job.name())
                  .addKeyValue("instance", instanceId)
                  .addKeyValue("fencingToken", granted.get().fencingToken())
                  .log("lease acquired");
              if (running > 0) {
                // Regained while fires of the lost lease are still queued (they fail as stale or
                // land): scan for holes once they are done, not now — now every one of them would
                // look like a hole and be sent a second time.
                rescan = true;
                return Future.succeededFuture(true);
              }
              return loadCursor().map(true);
            });
  }

  /**
   * Where planning resumes: after the newest slot in the ledger, unless a slot between the oldest
   * record within the catch-up window and the newest has no record (a fire that failed, e.g. under
   * a lease that was lost meanwhile, or a holder that died with fires still queued); then just
   * before the oldest such hole, skipping the slots after it that do have a record. The read table
   * may lag behind the ledger: a slot sent again because its record was not projected yet is a
   * duplicate that the slot's aggregate refuses.
   */
  private Future<Void> loadCursor() {
    return ledger
        .lastNominal(job.name())
        .compose(
            last ->
                last.isEmpty()
                    ? Future.succeededFuture(new Resume(null, new TreeSet<>()))
                    : ledger
                        .recorded(
                            job.name(),
                            last.get().minus(job.catchUpWindow()),
                            last.get(),
                            HOLE_SCAN_LIMIT)
                        // Off the event loop: with a day of records of a 1-second cron job, the
                        // walk took 1.2–3.4 s (cron-utils per step), stalling every timer on it.
                        .compose(
                            recorded ->
                                vertx.executeBlocking(
                                    () -> resumePoint(job.schedule(), recorded, last.get()),
                                    false)))
        .map(
            resume -> {
              if (!cursorLoaded) {
                cursor = resume.cursor();
                recordedAhead = resume.recordedAhead();
                cursorLoaded = true;
                if (!recordedAhead.isEmpty()) {
                  log.warn(
                      "job {}: slots after {} have no record in the ledger; planning them again",
                      job.name(),
                      cursor);
                }
              }
              return null;
            });
  }

  /** Where planning resumes, and the slots after that point that already have a record. */
  record Resume(Instant cursor, NavigableSet<Instant> recordedAhead) {}

  /**
   * The last slot before the oldest hole in {@code recorded} (the records between a point within
   * the catch-up window and {@code last}), with the records after it; or {@code last} when there is
   * no hole. Slots before the oldest record are not holes: the job may not have existed then.
   */
  static Resume resumePoint(Schedule schedule, NavigableSet<Instant> recorded, Instant last) {
    if (recorded.isEmpty()) {
      return new Resume(last, new TreeSet<>());
    }
    // A scan cut short by its limit only vouches for the slots it returned.
    Instant bound = recorded.last().isBefore(last) ? recorded.last() : last;
    Instant covered = recorded.first();
    Optional<Instant> next = schedule.nextAfter(covered);
    while (next.isPresent() && !next.get().isAfter(bound) && recorded.contains(next.get())) {
      covered = next.get();
      next = schedule.nextAfter(covered);
    }
    if (next.isEmpty() || next.get().isAfter(bound)) {
      return new Resume(last, new TreeSet<>());
    }
    return new Resume(covered, new TreeSet<>(recorded.tailSet(covered, false)));
  }

  /**
   * Plans from the cursor to now: records missed slots and fires due ones; then waits for the next.
   */
  private void plan() {
    Lease held = lease.get();
    if (held == null || !cursorLoaded || planning) {
      return;
    }
    planning = true;
    Instant now = clock.now();
    CatchUpPlan plan =
        CatchUpPlanner.plan(
            job.schedule(), job.catchUpPolicy(), job.catchUpWindow(), cursor, now, PLAN_LIMIT);
    // The due slots fire at once, and the missed ones are recorded side by side (one slot, one
    // aggregate: they do not contend), rather than one after the other before the fire: after a
    // 10-minute downtime a 1-second job's current slot no longer waits behind 600 records.
    for (Instant slot : plan.toFire()) {
      if (!recordedAhead.remove(slot)) {
        due(slot, held);
      }
    }
    List<Future<Void>> missed = new ArrayList<>();
    for (Instant slot : plan.missed()) {
      if (!recordedAhead.remove(slot)) {
        missed.add(recordMissed(slot));
      }
    }
    Future.join(missed)
        .onComplete(
            done -> {
              planning = false;
              if (done.failed()) {
                // Not advancing the cursor: the slots are planned again (what was recorded or
                // fired meanwhile is then a duplicate), so none is left without a record.
                log.warn(
                    "job {}: recording missed slots failed, planning them again: {}",
                    job.name(),
                    done.cause().toString());
                vertx.cancelTimer(dueTimer);
                dueTimer = vertx.setTimer(RETRY_PLAN_MILLIS, id -> plan());
                return;
              }
              Instant covered = plan.resumeAfter().orElse(latest(plan, cursor, now));
              if (covered != null) {
                cursor = covered;
              }
              if (!plan.complete()) {
                vertx.runOnContext(v -> plan());
              } else {
                scheduleNext();
              }
            });
  }

  private static Instant latest(CatchUpPlan plan, Instant cursor, Instant now) {
    Instant latest = cursor;
    for (Instant t : plan.toFire()) {
      latest = latest == null || t.isAfter(latest) ? t : latest;
    }
    for (Instant t : plan.missed()) {
      latest = latest == null || t.isAfter(latest) ? t : latest;
    }
    // A new job with nothing due yet starts counting from now.
    return latest == null ? now : latest;
  }

  private void scheduleNext() {
    vertx.cancelTimer(dueTimer);
    Instant from = cursor == null ? clock.now() : cursor;
    Optional<Instant> next = job.schedule().nextAfter(from);
    if (next.isEmpty()) {
      return;
    }
    long delay = Math.max(1, Duration.between(clock.now(), next.get()).toMillis());
    dueTimer = vertx.setTimer(delay, id -> plan());
  }

  /** A slot fell due: overlap policy, then fire. */
  private void due(Instant slot, Lease held) {
    if (paused) {
      skip(slot, "job paused by an operator");
      return;
    }
    OverlapPolicy.Decision decision = job.overlapPolicy().decide(running, buffered.size());
    switch (decision) {
      case RUN:
        run(slot, held, 1);
        break;
      case BUFFER:
        buffered.add(slot);
        break;
      default:
        skip(slot, "the previous run of " + job.name() + " was still running");
    }
  }

  private void run(Instant slot, Lease held, int attempt) {
    running++;
    runner
        .fire(job, slot, held.fencingToken(), attempt, false)
        .onComplete(
            done -> {
              running--;
              if (done.succeeded() && done.result().outcome() == RunResult.Outcome.FAILED) {
                scheduleRetry(slot, done.result().slot().attempt());
              } else if (done.failed()) {
                // The slot has no record: look for it (and any other) in the ledger again once
                // the fires in flight are done (see maintain).
                rescan = true;
                log.warn(
                    "job {}: fire of {} failed, planned again later: {}",
                    job.name(),
                    slot,
                    done.cause().toString());
              }
              Instant next = buffered.poll();
              Lease current = lease.get();
              if (next != null && current != null) {
                run(next, current, 1);
              }
            });
  }

  private void scheduleRetry(Instant slot, int failedAttempt) {
    job.retryPolicy()
        .delayBefore(failedAttempt + 1)
        .ifPresentOrElse(
            delay ->
                vertx.setTimer(
                    Math.max(1, delay.toMillis()),
                    id -> {
                      Lease current = lease.get();
                      if (current != null) {
                        run(slot, current, failedAttempt + 1);
                      }
                    }),
            () ->
                log.warn(
                    "job {}: slot {} failed {} times; no retries left",
                    job.name(),
                    slot,
                    failedAttempt));
  }

  /**
   * Fires again slots whose runner died (older token, past a lease TTL) or whose retry was lost.
   */
  private void recoverStalled() {
    Lease held = lease.get();
    if (held == null) {
      return;
    }
    Instant firedBefore = clock.now().minus(job.leaseTtl());
    // The longest retry delay this job uses: a FAILED slot older than that lost its retry.
    Instant failedBefore =
        firedBefore.minus(
            job.retryPolicy().delayBefore(job.retryPolicy().maxAttempts()).orElse(Duration.ZERO));
    ledger
        .stalled(
            job.name(),
            held.fencingToken(),
            firedBefore,
            job.retryPolicy().maxAttempts(),
            failedBefore)
        .onSuccess(
            stalled ->
                stalled.forEach(
                    s -> {
                      log.info(
                          "job {}: taking over stalled slot {} (attempt {})",
                          job.name(),
                          s.nominal(),
                          s.attempts() + 1);
                      run(s.nominal(), held, s.attempts() + 1);
                    }));
  }

  private Future<Void> recordMissed(Instant slot) {
    return Future.fromCompletionStage(
            // Almost always a slot nobody touched: recorded without reading its stream first.
            commands.sendCreating(
                new MissSlot(
                    DeterministicIds.forSlotCommand(job.name(), slot, "miss"),
                    DeterministicIds.forSlot(job.name(), slot),
                    job.name(),
                    slot,
                    "outside the catch-up window ("
                        + job.catchUpPolicy()
                        + ", "
                        + job.catchUpWindow()
                        + ")")),
            vertx.getOrCreateContext())
        .onSuccess(
            v -> {
              runner.metrics().slot(job.name(), SlotOutcome.MISSED);
              outcomeLine(slot, "missed", "miss").log("slot missed");
            })
        .mapEmpty();
  }

  /** A slot outcome decided by the timer itself (missed, skipped), as a structured line. */
  private org.slf4j.spi.LoggingEventBuilder outcomeLine(
      Instant slot, String outcome, String target) {
    Lease held = lease.get();
    return SlotLog.line(
            log.atInfo(),
            job.name(),
            DeterministicIds.forSlot(job.name(), slot),
            slot,
            instanceId,
            held == null ? 0 : held.fencingToken())
        .addKeyValue("commandId", DeterministicIds.forSlotCommand(job.name(), slot, target))
        .addKeyValue("outcome", outcome);
  }

  private void skip(Instant slot, String reason) {
    Future.fromCompletionStage(
            commands.send(
                new SkipSlot(
                    DeterministicIds.forSlotCommand(job.name(), slot, "skip"),
                    DeterministicIds.forSlot(job.name(), slot),
                    job.name(),
                    slot,
                    reason)),
            vertx.getOrCreateContext())
        .onSuccess(
            v -> {
              runner.metrics().slot(job.name(), SlotOutcome.SKIPPED);
              outcomeLine(slot, "skipped", "skip")
                  .addKeyValue("reason", reason)
                  .log("slot skipped");
            })
        .onFailure(
            e ->
                log.warn(
                    "job {}: could not record skip of {}: {}", job.name(), slot, e.toString()));
  }
}
