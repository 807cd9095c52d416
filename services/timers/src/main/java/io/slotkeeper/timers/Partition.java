package io.slotkeeper.timers;

import io.slotkeeper.leases.Lease;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.timers.TimerHealth.Fault;
import io.slotkeeper.timers.TimerHealth.Step;
import io.slotkeeper.timers.TimerHealth.StepFault;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition held (or last held) by this instance: its lease and the timers of its schedules.
 * Its upkeep, every third of the lease's TTL, renews the lease, reads the pause switches of all its
 * schedules in one query and their stalled slots in another, and hands the cursor loads that are
 * needed to {@link CursorLoads}: a constant number of Redis and PostgreSQL calls per partition,
 * however many schedules it has. A lease this instance cannot use (no schedule of the partition can
 * plan for a TTL, or all stalled) is given up; a partition handed over to another instance is
 * drained first: planning stops, then the lease is released once its fires have their answers.
 */
final class Partition {

  private static final Logger log = LoggerFactory.getLogger(Partition.class);

  final int number;
  final String leaseName;
  private final LeaseKeeper lease;
  private final LedgerQueries ledger;
  private final SlotClock clock;
  private final String instanceId;
  private final Duration ttl;
  private final CursorLoads loads;
  // Read by health checks and scrapes on other threads.
  private final Map<String, ScheduleTimer> timers = new ConcurrentHashMap<>();
  private boolean renewing;
  private boolean reading;
  private Instant drainingSince;
  private boolean standAside;
  private volatile Fault lastFault;

  Partition(
      int number,
      String leaseName,
      LeaseKeeper lease,
      LedgerQueries ledger,
      SlotClock clock,
      String instanceId,
      Duration ttl,
      CursorLoads loads) {
    this.number = number;
    this.leaseName = leaseName;
    this.lease = lease;
    this.ledger = ledger;
    this.clock = clock;
    this.instanceId = instanceId;
    this.ttl = ttl;
    this.loads = loads;
  }

  Optional<Lease> lease() {
    return lease.lease();
  }

  boolean held() {
    return lease.lease().isPresent();
  }

  boolean draining() {
    return drainingSince != null;
  }

  Optional<Fault> lastFault() {
    return Optional.ofNullable(lastFault);
  }

  Optional<ScheduleTimer> timer(String name) {
    return Optional.ofNullable(timers.get(name));
  }

  Collection<ScheduleTimer> timers() {
    return timers.values();
  }

  /** Hosts the timer (replacing the schedule's previous one, if any) and loads its cursor. */
  void host(ScheduleTimer timer) {
    timers.put(timer.job().name(), timer);
    if (held() && !draining()) {
      timer.leaseGained(clock.now());
      loads.submit(timer);
    }
  }

  /** Stops and drops the schedule's timer (its runs in flight finish on their own). */
  void drop(String name) {
    ScheduleTimer t = timers.remove(name);
    if (t != null) {
      t.stop();
    }
  }

  /** Whether this instance sat the last try out and should sit this one out: asked once. */
  boolean standAside() {
    boolean was = standAside;
    standAside = false;
    return was;
  }

  /** Tries to acquire the lease; true when it was gained now. */
  Future<Boolean> acquire() {
    return lease
        .keep()
        .map(
            kept -> {
              if (kept.gained()) {
                Instant now = clock.now();
                timers.values().forEach(t -> t.leaseGained(now));
              }
              return kept.gained();
            })
        .onFailure(this::fault);
  }

  /**
   * One upkeep: the lease renewal, and (unless the previous one is still going) the ledger reads.
   * The renewal never waits behind a slow read: a read may take its whole deadline, a lease not
   * renewed for a TTL is lost.
   */
  void maintain() {
    if (!held()) {
      return;
    }
    if (!renewing) {
      renewing = true;
      lease
          .keep()
          .onSuccess(
              kept -> {
                if (!kept.held()) {
                  gone();
                }
              })
          .onFailure(this::fault)
          .onComplete(done -> renewing = false);
    }
    if (reading || draining()) {
      return;
    }
    reading = true;
    refreshPause()
        .compose(v -> upkeepTimers())
        .onSuccess(v -> timers.values().forEach(ScheduleTimer::maintained))
        .onFailure(this::fault)
        // Belt and braces: every step has its own deadline, so this never waits for ever.
        .timeout(4 * LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onComplete(
            done -> {
              reading = false;
              giveUpUnusableLease();
            });
  }

  private Future<Void> refreshPause() {
    // A fault here keeps the last known switches: the timers go on planning.
    List<String> names = new ArrayList<>(timers.keySet());
    return ledger
        .pausedAmong(names)
        .timeout(LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onSuccess(
            paused -> timers.values().forEach(t -> t.paused(paused.contains(t.job().name()))))
        .onFailure(e -> fault(new StepFault(leaseName, Step.PAUSE_STATE, e)))
        .<Void>mapEmpty()
        .otherwiseEmpty();
  }

  private Future<Void> upkeepTimers() {
    List<ScheduleTimer> ready = new ArrayList<>();
    for (ScheduleTimer t : timers.values()) {
      if (t.wantsLoad()) {
        loads.submit(t);
      } else if (t.cursorLoaded()) {
        t.planIfIdle();
        ready.add(t);
      }
    }
    Optional<Lease> held = lease.lease();
    if (ready.isEmpty() || held.isEmpty()) {
      return Future.succeededFuture();
    }
    List<JobDefinition> jobs = ready.stream().map(ScheduleTimer::job).toList();
    return ledger
        .stalledAmong(jobs, held.get().fencingToken(), instanceId, clock.now())
        .timeout(LedgerCursor.LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .recover(e -> Future.failedFuture(new StepFault(leaseName, Step.TAKEOVER, e)))
        .onSuccess(
            stalled ->
                ready.forEach(t -> t.takeOver(stalled.getOrDefault(t.job().name(), List.of()))))
        .mapEmpty();
  }

  /** A step failed: counted for every schedule of the partition; the next upkeep starts over. */
  private void fault(Throwable e) {
    boolean named = e instanceof StepFault;
    Step step = named ? ((StepFault) e).step : Step.CURSOR;
    Throwable cause = named && e.getCause() != null ? e.getCause() : e;
    Instant now = clock.now();
    lastFault = new Fault(step, String.valueOf(cause), now);
    timers.values().forEach(t -> t.fault(step, cause));
    log.warn("{} on {}: {} failed: {}", leaseName, instanceId, step.tag(), cause.toString());
    if (lease.lease().isEmpty()) {
      gone();
    }
  }

  private void gone() {
    Instant now = clock.now();
    timers.values().forEach(t -> t.leaseGone(now));
  }

  /**
   * A lease is held only by an instance able to fire: when no schedule of the partition could plan
   * for a whole TTL, or all are stalled, it is released (and this instance sits the next try out)
   * so that another instance can take the partition over.
   */
  private void giveUpUnusableLease() {
    if (!held() || draining() || timers.isEmpty()) {
      return;
    }
    Instant now = clock.now();
    int unusable = 0;
    for (ScheduleTimer t : timers.values()) {
      unusable += t.unusable(ttl, now) ? 1 : 0;
    }
    if (unusable < timers.size()) {
      return;
    }
    log.warn(
        "{}: giving the lease up on {}: no schedule of it can fire here", leaseName, instanceId);
    standAside = true;
    gone();
    lease.release().onFailure(e -> timers.values().forEach(t -> t.fault(Step.LEASE_RELEASE, e)));
  }

  /** Hands the partition over: no more planning; {@link #drained()} says when to release it. */
  void drain() {
    if (drainingSince == null) {
      drainingSince = clock.now();
      timers.values().forEach(ScheduleTimer::stop);
    }
  }

  /** Draining, and every fire answered (or a TTL passed): ready to {@link #release()}. */
  boolean drained() {
    return draining()
        && (timers.values().stream().allMatch(ScheduleTimer::idle)
            || Duration.between(drainingSince, clock.now()).compareTo(ttl) > 0);
  }

  /** Stops every timer and gives the lease up (a failed release lets it expire instead). */
  Future<Void> release() {
    timers.values().forEach(ScheduleTimer::stop);
    timers.clear();
    return lease.release().otherwiseEmpty();
  }
}
