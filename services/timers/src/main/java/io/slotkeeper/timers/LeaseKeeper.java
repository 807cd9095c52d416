package io.slotkeeper.timers;

import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.timers.TimerHealth.Step;
import io.slotkeeper.timers.TimerHealth.StepFault;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lease (a partition's, see {@link Partitions}): acquires it when free, renews it while
 * held, gives it up on request. Every Redis and PostgreSQL call has a deadline, so a call that
 * stalls ends as a failure instead of leaving the keeper waiting. What the keeper believes it holds
 * is bounded by the lease's TTL: a lease whose renewal has not succeeded for a whole TTL has
 * expired in Redis and is forgotten here.
 */
final class LeaseKeeper {

  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  /** The outcome of one {@link #keep()}: whether the lease is held, and whether it was just won. */
  record Kept(boolean held, boolean gained) {}

  private final String name;
  private final String instanceId;
  private final Duration ttl;
  private final long deadlineMillis;
  private final RedisLeases leases;
  private final Supplier<Future<Long>> floor;
  private final LongSupplier nanos;
  private final AtomicReference<Lease> held = new AtomicReference<>();
  private long confirmedAt;

  /**
   * @param name the lease's name
   * @param floor the fencing token floor read before an acquisition: at least every token the
   *     ledger accepted for any job the lease covers
   */
  LeaseKeeper(
      String name,
      String instanceId,
      Duration ttl,
      RedisLeases leases,
      Supplier<Future<Long>> floor,
      LongSupplier nanos) {
    this.name = name;
    this.instanceId = instanceId;
    this.ttl = ttl;
    // Within the maintenance period, so that a stalled call never skips more than one upkeep; at
    // least 2 s, so that a first call that opens its connection is not cut short.
    this.deadlineMillis = Math.max(2_000, ttl.toMillis() / 3);
    this.leases = leases;
    this.floor = floor;
    this.nanos = nanos;
  }

  /** How often the lease is renewed, and the timer maintained: a third of the TTL. */
  static long upkeepPeriod(Duration ttl) {
    return Math.max(100, ttl.toMillis() / 3);
  }

  /** The lease held, if any. */
  Optional<Lease> lease() {
    return Optional.ofNullable(held.get());
  }

  /** Renews the held lease, or tries to acquire it. Fails with a {@link StepFault}. */
  Future<Kept> keep() {
    Lease current = held.get();
    return current != null ? renew(current) : acquire();
  }

  private Future<Kept> renew(Lease current) {
    return within(leases.renew(current, ttl), Step.LEASE_RENEW)
        .map(
            ok -> {
              if (ok) {
                confirmedAt = nanos.getAsLong();
              } else {
                log.warn(
                    "lease {}: lost (token {}) on {}", name, current.fencingToken(), instanceId);
                held.compareAndSet(current, null);
              }
              return new Kept(ok, false);
            })
        .recover(
            e -> {
              // Unknown whether Redis renewed it; after a TTL without a confirmed renewal, it did
              // not.
              if (nanos.getAsLong() - confirmedAt > ttl.toNanos()) {
                held.compareAndSet(current, null);
              }
              return Future.failedFuture(e);
            });
  }

  private Future<Kept> acquire() {
    return within(floor.get(), Step.LEASE_ACQUIRE)
        .compose(f -> within(leases.acquire(name, instanceId, ttl, f), Step.LEASE_ACQUIRE))
        .map(
            granted -> {
              if (granted.isEmpty()) {
                return new Kept(false, false);
              }
              held.set(granted.get());
              confirmedAt = nanos.getAsLong();
              log.atInfo()
                  .addKeyValue("lease", name)
                  .addKeyValue("instance", instanceId)
                  .addKeyValue("fencingToken", granted.get().fencingToken())
                  .log("lease acquired");
              return new Kept(true, true);
            });
  }

  /** Forgets the lease and gives it up in Redis (a failed release lets it expire instead). */
  Future<Void> release() {
    Lease current = held.getAndSet(null);
    if (current == null) {
      return Future.succeededFuture();
    }
    return within(leases.release(current), Step.LEASE_RELEASE).mapEmpty();
  }

  private <T> Future<T> within(Future<T> call, Step step) {
    return call.timeout(deadlineMillis, TimeUnit.MILLISECONDS)
        .recover(e -> Future.failedFuture(new StepFault(name, step, e)));
  }
}
