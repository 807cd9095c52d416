package io.slotkeeper.timers;

import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.timers.TimerHealth.Step;
import io.slotkeeper.timers.TimerHealth.StepFault;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one job's lease: acquires it when free, renews it while held, gives it up on request. Every
 * Redis and PostgreSQL call has a deadline, so a call that stalls ends as a failure instead of
 * leaving the keeper waiting. What the keeper believes it holds is bounded by the lease's TTL: a
 * lease whose renewal has not succeeded for a whole TTL has expired in Redis and is forgotten here.
 */
final class LeaseKeeper {

  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

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

  /** How often the lease is renewed, and the timer maintained: a third of the TTL. */
  static long upkeepPeriod(Duration ttl) {
    return Math.max(100, ttl.toMillis() / 3);
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
                    "job {}: lost lease (token {}) on {}", job, current.fencingToken(), instanceId);
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
              log.atInfo()
                  .addKeyValue("job", job)
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
        .recover(e -> Future.failedFuture(new StepFault(job, step, e)));
  }
}
