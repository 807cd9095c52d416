package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.leases.InstanceRoster;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.timers.TimerHealth.Fault;
import io.slotkeeper.timers.TimerHealth.Step;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer engine of one instance: the partitions it holds ({@link Partition}), each with the
 * timers of its schedules, one {@link DueQueue} for all their due times and one bound on their
 * cursor loads. Every upkeep period it announces itself in the {@link InstanceRoster}, works out
 * its fair share of the partitions (the count rounded up over the live instances), acquires free
 * partitions up to it and drains the ones above it; when an instance stops beating, it shares again
 * at the moment that instance ages out of the roster and its leases expire, so that a takeover
 * waits for the lease TTL and not for an upkeep on top of it. Catalog changes reach the owning
 * partition on this verticle's event loop.
 */
public final class PartitionTimers extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(PartitionTimers.class);
  // Cursor batches read at once: a partition gained with many schedules must not take the pool.
  static final int CONCURRENT_LOADS = 2;
  // After an expiry, so that the lease (or roster entry) is surely gone when the share runs.
  static final long WAKE_MARGIN_MILLIS = 50;

  /** What the engine reports to health checks. */
  public record Report(
      int partitions,
      int liveInstances,
      int share,
      List<Integer> held,
      Optional<Fault> lastFault) {}

  private final ScheduleCatalog catalog;
  private final Partitions partitions;
  private final SlotRunner runner;
  private final CommandBatcher commands;
  private final RedisLeases leases;
  private final InstanceRoster roster;
  private final LedgerQueries ledger;
  private final SlotClock clock;
  private final String instanceId;
  private final Duration ttl;
  private final long period;
  private final long deadlineMillis;
  // Read from other threads (health, metrics, the API).
  private final Map<Integer, Partition> owned = new ConcurrentHashMap<>();
  private final Map<Integer, Long> upkeeps = new HashMap<>();
  private volatile CursorLoads loads;
  private DueQueue due;
  private Context context;
  private long shareTimer = -1;
  private long wakeTimer = -1;
  private boolean sharing;
  private boolean shareAgain;
  private boolean stopping;
  private Future<Long> floor;
  private volatile int live = 1;
  private volatile int share;
  private volatile Fault lastFault;

  PartitionTimers(
      ScheduleCatalog catalog,
      Partitions partitions,
      SlotRunner runner,
      CommandBatcher commands,
      RedisLeases leases,
      InstanceRoster roster,
      LedgerQueries ledger,
      SlotClock clock,
      String instanceId,
      Duration ttl) {
    this.catalog = catalog;
    this.partitions = partitions;
    this.runner = runner;
    this.commands = commands;
    this.leases = leases;
    this.roster = roster;
    this.ledger = ledger;
    this.clock = clock;
    this.instanceId = instanceId;
    this.ttl = ttl;
    this.period = upkeepPeriod(ttl);
    // Within the period, so that a stalled call never skips more than one upkeep; at least 2 s,
    // so that a first call that opens its connection is not cut short.
    this.deadlineMillis = Math.max(2_000, ttl.toMillis() / 3);
    this.share = partitions.count();
  }

  /** How often leases are renewed and partitions maintained and shared: a third of the TTL. */
  static long upkeepPeriod(Duration ttl) {
    return Math.max(100, ttl.toMillis() / 3);
  }

  @Override
  public Future<?> start() {
    context = vertx.getOrCreateContext();
    due = new DueQueue(vertx, System::nanoTime);
    loads = new CursorLoads(vertx, ledger, clock, CONCURRENT_LOADS, runner.metrics());
    catalog.onChange(name -> context.runOnContext(v -> changed(name)));
    vertx.runOnContext(v -> share());
    shareTimer = vertx.setPeriodic(period, id -> share());
    log.info(
        "timer engine started on {}: {} partitions, lease TTL {}",
        instanceId,
        partitions.count(),
        ttl);
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(shareTimer);
    vertx.cancelTimer(wakeTimer);
    upkeeps.values().forEach(vertx::cancelTimer);
    List<Future<Void>> released = new ArrayList<>();
    owned.values().forEach(p -> released.add(p.release()));
    released.add(roster.leave(instanceId));
    due.close();
    return Future.join(released).timeout(deadlineMillis, TimeUnit.MILLISECONDS).otherwiseEmpty();
  }

  /** The lease of the schedule's partition, if this instance holds it. */
  Optional<Lease> heldLease(String schedule) {
    Partition p = owned.get(partitions.of(schedule));
    return p == null ? Optional.empty() : p.lease();
  }

  /** The schedule's timer on this instance, if its partition is hosted here. */
  Optional<ScheduleTimer> timer(String schedule) {
    Partition p = owned.get(partitions.of(schedule));
    return p == null ? Optional.empty() : p.timer(schedule);
  }

  /** Schedules whose cursor load waits or runs (0 before the engine starts). */
  int cursorLoadsWaiting() {
    CursorLoads l = loads;
    return l == null ? 0 : l.pending();
  }

  /** Partitions whose lease this instance holds. */
  int held() {
    return (int) owned.values().stream().filter(Partition::held).count();
  }

  Report report() {
    List<Integer> held =
        owned.values().stream().filter(Partition::held).map(p -> p.number).sorted().toList();
    return new Report(partitions.count(), live, share, held, Optional.ofNullable(lastFault));
  }

  // ---- sharing the partitions ----

  private void share() {
    if (sharing || stopping) {
      return;
    }
    sharing = true;
    floor = null;
    roster
        .beat(instanceId)
        .timeout(deadlineMillis, TimeUnit.MILLISECONDS)
        .compose(
            beat -> {
              live = beat.live();
              share = InstanceRoster.fairShare(partitions.count(), beat.live());
              wakeAt(beat.nextAgeOutMillis());
              return rebalance();
            })
        .onFailure(
            e -> {
              lastFault = new Fault(Step.LEASE_ACQUIRE, String.valueOf(e), clock.now());
              log.warn(
                  "timer engine on {}: sharing the partitions failed: {}",
                  instanceId,
                  e.toString());
            })
        .onComplete(
            done -> {
              sharing = false;
              if (shareAgain) {
                shareAgain = false;
                share();
              }
            });
  }

  /**
   * Shares again at {@code millis} (wall clock) when that comes before the next periodic share: the
   * moment an instance that stopped beating ages out of the roster, or a partition lease it held
   * expires. A dead instance's schedules are then taken over when its lease ends, not up to an
   * upkeep period later. In a steady fleet every such moment lies beyond the next share.
   */
  private void wakeAt(long millis) {
    long in = millis - System.currentTimeMillis() + WAKE_MARGIN_MILLIS;
    if (in >= period || stopping) {
      return;
    }
    if (wakeTimer >= 0) {
      vertx.cancelTimer(wakeTimer);
    }
    wakeTimer =
        vertx.setTimer(
            Math.max(1, in),
            id -> {
              wakeTimer = -1;
              if (sharing) {
                shareAgain = true; // this share read the roster and leases before the expiry
              } else {
                share();
              }
            });
  }

  private Future<Void> rebalance() {
    for (Partition p : List.copyOf(owned.values())) {
      if (p.drained()) {
        forget(p);
        p.release();
        log.info("{} handed over by {}", p.leaseName, instanceId);
      }
    }
    List<Partition> held = owned.values().stream().filter(p -> p.held() && !p.draining()).toList();
    if (held.size() > share) {
      // The highest numbers go: every instance agrees on nothing but the count, and that is enough.
      held.stream()
          .sorted((a, b) -> Integer.compare(b.number, a.number))
          .limit(held.size() - share)
          .forEach(
              p -> {
                log.info("{}: draining on {} (fair share {})", p.leaseName, instanceId, share);
                p.drain();
              });
      return Future.succeededFuture();
    }
    if (held.size() == share) {
      return Future.succeededFuture();
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < partitions.count(); i++) {
      names.add(partitions.leaseName(i));
    }
    int wanted = share - held.size();
    return leases
        .holders(names)
        .timeout(deadlineMillis, TimeUnit.MILLISECONDS)
        .compose(
            holders ->
                acquireUpTo(candidates(holders), 0, wanted)
                    .compose(left -> left > 0 ? wakeAtExpiry(names, holders) : succeeded()));
  }

  /**
   * Short of its share: wakes when the first partition another instance held (at the holders' read)
   * expires, or at once when one expired meanwhile.
   */
  private Future<Void> wakeAtExpiry(List<String> names, List<Optional<String>> holders) {
    List<String> others = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      if (holders.get(i).filter(h -> !h.equals(instanceId)).isPresent()) {
        others.add(names.get(i));
      }
    }
    long now = System.currentTimeMillis();
    return leases
        .remaining(others)
        .timeout(deadlineMillis, TimeUnit.MILLISECONDS)
        .map(
            left -> {
              // One that expired since the holders were read is free now: share again at once.
              left.stream()
                  .mapToLong(d -> d.map(Duration::toMillis).orElse(0L))
                  .min()
                  .ifPresent(ms -> wakeAt(now + ms));
              return null;
            });
  }

  private static Future<Void> succeeded() {
    return Future.succeededFuture();
  }

  /** Free partitions (and lost ones of this instance first), from an offset of this instance. */
  private List<Integer> candidates(List<Optional<String>> holders) {
    List<Integer> mine = new ArrayList<>();
    List<Integer> free = new ArrayList<>();
    int offset = offset();
    for (int k = 0; k < holders.size(); k++) {
      int i = (offset + k) % holders.size();
      Optional<String> holder = holders.get(i);
      Partition known = owned.get(i);
      boolean other = holder.isPresent() && !holder.get().equals(instanceId);
      if (other) {
        if (known != null && !known.held()) {
          // Taken over meanwhile: its timers belong to the new holder now.
          forget(known);
          known.release();
        }
        continue;
      }
      if (known != null && (known.held() || known.standAside())) {
        continue;
      }
      (known != null ? mine : free).add(i);
    }
    mine.addAll(free);
    return mine;
  }

  private int offset() {
    long digest =
        UUID.nameUUIDFromBytes(instanceId.getBytes(StandardCharsets.UTF_8))
            .getMostSignificantBits();
    return (int) Math.floorMod(digest, (long) partitions.count());
  }

  /**
   * Acquires candidates from {@code next} on until {@code wanted} are gained, as many at once as
   * are still wanted (one at a time, a takeover of ten partitions waited for ten round trips on a
   * busy event loop); answers how many are still wanted.
   */
  private Future<Integer> acquireUpTo(List<Integer> candidates, int next, int wanted) {
    if (wanted == 0 || next >= candidates.size() || stopping) {
      return Future.succeededFuture(wanted);
    }
    int end = Math.min(candidates.size(), next + wanted);
    List<Future<Boolean>> tries = new ArrayList<>();
    for (int i = next; i < end; i++) {
      tries.add(acquire(candidates.get(i)));
    }
    return Future.join(tries)
        .transform(
            done -> {
              int gained =
                  (int) tries.stream().filter(t -> Boolean.TRUE.equals(t.result())).count();
              return acquireUpTo(candidates, end, wanted - gained);
            });
  }

  private Future<Boolean> acquire(int number) {
    Partition p =
        owned.computeIfAbsent(
            number,
            i ->
                new Partition(
                    i,
                    partitions.leaseName(i),
                    new LeaseKeeper(
                        partitions.leaseName(i),
                        instanceId,
                        ttl,
                        leases,
                        this::fenceFloor,
                        System::nanoTime),
                    ledger,
                    clock,
                    instanceId,
                    ttl,
                    loads));
    return p.acquire()
        .map(
            gained -> {
              if (gained) {
                gained(p);
              } else if (!p.held() && p.timers().isEmpty()) {
                owned.remove(number);
              }
              return gained;
            })
        // One partition's failure does not stop the others' acquisition.
        .otherwise(false);
  }

  /**
   * The floor of every acquisition of this round: the highest token the ledger accepted for any
   * job, read once. A partition's token is then above every token any of its jobs ever recorded,
   * whatever the partition count was and even if Redis lost its counters.
   */
  private Future<Long> fenceFloor() {
    if (floor == null || floor.failed()) {
      floor = ledger.highestTokenOverall();
    }
    return floor;
  }

  private void gained(Partition p) {
    for (JobDefinition job : catalog.all()) {
      if (partitions.of(job.name()) == p.number && p.timer(job.name()).isEmpty() && runnable(job)) {
        p.host(newTimer(p, job));
      }
    }
    Long old = upkeeps.remove(p.number);
    if (old != null) {
      vertx.cancelTimer(old);
    }
    upkeeps.put(
        p.number,
        vertx.setPeriodic(partitions.phase(p.number, period), period, id -> p.maintain()));
    p.maintain();
  }

  private void forget(Partition p) {
    owned.remove(p.number, p);
    Long upkeep = upkeeps.remove(p.number);
    if (upkeep != null) {
      vertx.cancelTimer(upkeep);
    }
  }

  // ---- catalog changes ----

  /** A schedule was created, changed or deleted: its partition's timers follow, here and now. */
  private void changed(String name) {
    Partition p = owned.get(partitions.of(name));
    if (p == null) {
      return; // another instance's, or nobody's yet: read from the catalog when gained
    }
    Optional<JobDefinition> now = catalog.get(name).filter(this::runnable);
    Optional<ScheduleTimer> before = p.timer(name);
    if (now.isEmpty()) {
      p.drop(name);
      return;
    }
    if (before.isPresent() && before.get().job().equals(now.get())) {
      return;
    }
    if (!p.held() || p.draining()) {
      p.drop(name); // planned from the catalog when the partition is gained again
      return;
    }
    ScheduleTimer timer = newTimer(p, now.get());
    before.ifPresent(
        old -> {
          timer.replaces(old, clock.now());
          old.stop();
        });
    p.host(timer);
    log.info(
        "job {}: timer {} on {}", name, before.isPresent() ? "replaced" : "started", instanceId);
  }

  private boolean runnable(JobDefinition job) {
    if (!job.enabled()) {
      return false;
    }
    if (!runner.handles(job)) {
      log.warn(
          "job {} names handler '{}', which this build does not have", job.name(), job.handler());
      return false;
    }
    return true;
  }

  private ScheduleTimer newTimer(Partition p, JobDefinition job) {
    return new ScheduleTimer(vertx, job, runner, commands, clock, instanceId, p::lease, due);
  }
}
