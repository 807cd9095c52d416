package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.testing.TestInfra;
import io.slotkeeper.timers.TimerHealth.Step;
import io.slotkeeper.timers.TimerHealth.StepFault;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease keeping against real Redis and PostgreSQL, with a Redis client that breaks: a renewal that
 * fails keeps the lease only as long as Redis may still hold it (one TTL from the last confirmed
 * renewal), and every failure names its step.
 */
class LeaseKeeperIT {

  private static final Duration TTL = Duration.ofSeconds(3);
  private final Vertx vertx = Vertx.vertx();
  private final PostgresEndpoint db = TestInfra.freshDatabase("lease-keeper");
  private final AtomicLong nanos = new AtomicLong();

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.await(10, TimeUnit.SECONDS);
  }

  /** Waits until {@code f} succeeded or failed, and gives it back. */
  private static <T> Future<T> settled(Future<T> f) throws Exception {
    f.transform(done -> Future.succeededFuture()).await(10, TimeUnit.SECONDS);
    return f;
  }

  @Test
  void aFailedRenewalKeepsTheLeaseForOneTtlFromTheLastConfirmationThenForgetsIt() throws Exception {
    Database.open(db, 2, "lease-keeper").close();
    Pool pool = ReadPools.create(vertx, db, 2, "lease-keeper");
    RedisAPI redis =
        RedisAPI.api(
            Redis.createClient(
                vertx,
                new RedisOptions().setConnectionString(TestInfra.redis().connectionString())));
    LeaseKeeper keeper =
        new LeaseKeeper(
            "partition:03",
            "keeper-1",
            TTL,
            new RedisLeases(redis, "slotkeeper-test:" + UUID.randomUUID() + ":"),
            new LedgerQueries(pool)::highestTokenOverall,
            nanos::get);

    LeaseKeeper.Kept first = await(keeper.keep());
    assertThat(first.held()).isTrue();
    assertThat(first.gained()).isTrue();
    assertThat(await(keeper.keep()).gained()).isFalse(); // renewed, not gained again

    redis.close(); // Redis unreachable from here on: every call fails
    nanos.addAndGet(TTL.toNanos() / 2);
    Future<LeaseKeeper.Kept> failing = settled(keeper.keep());
    assertThat(failing.failed()).isTrue();
    assertThat(failing.cause()).isInstanceOf(StepFault.class);
    assertThat(((StepFault) failing.cause()).step).isEqualTo(Step.LEASE_RENEW);
    // Within a TTL of the last confirmed renewal Redis may still hold it: kept.
    assertThat(keeper.lease()).isPresent();

    nanos.addAndGet(TTL.toNanos());
    Future<LeaseKeeper.Kept> expired = settled(keeper.keep());
    assertThat(expired.failed()).isTrue();
    // Past a TTL without a confirmed renewal it has expired in Redis: forgotten.
    assertThat(keeper.lease()).isEmpty();
    // The next try is an acquisition, and its failure says so.
    Future<LeaseKeeper.Kept> acquire = settled(keeper.keep());
    assertThat(acquire.failed()).isTrue();
    assertThat(((StepFault) acquire.cause()).step).isEqualTo(Step.LEASE_ACQUIRE);
  }
}
