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

/**
 * Keeps one job's lease: acquires it when free, renews it while held, gives it up on request. Every
 * Redis and PostgreSQL call has a deadline, so a call that stalls ends as a failure instead of
 * leaving the keeper waiting. What the keeper believes it holds is bounded by the lease's TTL: a
 * lease whose renewal has not succeeded for a whole TTL has expired in Redis and is forgotten here.
 */
final class LeaseKeeper {

  /** The outcome of one {@link #keep()}: whether the lease is held, and whether it was just won. */
  record Kept(boolean held, boolean gained) {}

  private final String job;
  private final String instanceId;
  private final Duration ttl;
  private final long deadlineMillis;
  private final RedisLeases leases;
  private final LedgerQueries ledger;
  private final LongSupplier nanos;
  private final AtomicReference<Lease> held = new AtomicReference<>();
  private long confirmedAt;

  LeaseKeeper(
      String job,
      String instanceId,
      Duration ttl,
      RedisLeases leases,
      LedgerQueries ledger,
      LongSupplier nanos) {
    this.job = job;
    this.instanceId = instanceId;
    this.ttl = ttl;
    // Within the maintenance period, so that a stalled call never skips more than one upkeep; at
    // least 2 s, so that a first call that opens its connection is not cut short.
    this.deadlineMillis = Math.max(2_000, ttl.toMillis() / 3);
    this.leases = leases;
    this.ledger = ledger;
    this.nanos = nanos;
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
    return within(ledger.highestToken(job), Step.LEASE_ACQUIRE)
        .compose(floor -> within(leases.acquire(job, instanceId, ttl, floor), Step.LEASE_ACQUIRE))
        .map(
            granted -> {
              if (granted.isEmpty()) {
                return new Kept(false, false);
              }
              held.set(granted.get());
              confirmedAt = nanos.getAsLong();
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
        .recover(e -> Future.failedFuture(new StepFault(step, e)));
  }
}
