package io.slotkeeper.leases;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Leases and fencing tokens on a real Redis. */
class RedisLeasesIT {

  static final Duration TTL = Duration.ofSeconds(10);
  static Vertx vertx;
  static RedisAPI redis;
  static RedisLeases leases;
  static String prefix;

  @BeforeAll
  static void setUp() {
    vertx = Vertx.vertx();
    redis =
        RedisAPI.api(
            Redis.createClient(
                vertx,
                new RedisOptions().setConnectionString(TestInfra.redis().connectionString())));
    // A prefix of its own, so runs never see each other's keys on a shared Redis.
    prefix = "slotkeeper-test:" + UUID.randomUUID() + ":";
    leases = new RedisLeases(redis, prefix);
  }

  @AfterAll
  static void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.await(10, TimeUnit.SECONDS);
  }

  @Test
  void theHoldersOfManyLeasesInOneRoundTrip() throws Exception {
    Lease held = await(leases.acquire("partition:01", "instance-1", TTL, 0)).orElseThrow();
    assertThat(await(leases.holders(List.of("partition:00", "partition:01", "partition:02"))))
        .containsExactly(Optional.empty(), Optional.of("instance-1"), Optional.empty());
    // The grants: holder and fencing token together, as the holder was granted them.
    assertThat(await(leases.grants(List.of("partition:00", "partition:01"))))
        .containsExactly(Optional.empty(), Optional.of(held));
    assertThat(await(leases.grant("partition:01"))).hasValue(held);
    await(leases.release(held));
    assertThat(await(leases.holders(List.of("partition:01")))).containsExactly(Optional.empty());
  }

  @Test
  void theRosterCountsTheInstancesThatBeatWithinTheWindow() throws Exception {
    long[] now = {1_000_000};
    InstanceRoster roster =
        new InstanceRoster(redis, prefix, "roster-test", Duration.ofSeconds(2), () -> now[0]);
    assertThat(await(roster.beat("a"))).isEqualTo(new InstanceRoster.Beat(1, 1_002_000));
    assertThat(await(roster.beat("b")).live()).isEqualTo(2);
    now[0] += 1_500;
    // b's beat is 1.5 s old: still live, and the next to age out (a's is newer).
    assertThat(await(roster.beat("a"))).isEqualTo(new InstanceRoster.Beat(2, 1_002_000));
    now[0] += 1_000;
    assertThat(await(roster.beat("a")).live()).isEqualTo(1); // b's is 2.5 s old: aged out
    assertThat(await(roster.beat("b")).live()).isEqualTo(2);
    await(roster.leave("b"));
    assertThat(await(roster.beat("a")).live()).isEqualTo(1);
  }

  @Test
  void theTimeLeftOfManyLeasesInOneRoundTrip() throws Exception {
    Lease held = await(leases.acquire("partition:07", "instance-1", TTL, 0)).orElseThrow();
    var left = await(leases.remaining(List.of("partition:06", "partition:07")));
    assertThat(left.get(0)).isEmpty();
    assertThat(left.get(1))
        .hasValueSatisfying(d -> assertThat(d).isBetween(TTL.minusSeconds(2), TTL));
    await(leases.release(held));
    assertThat(await(leases.remaining(List.of("partition:07")))).containsExactly(Optional.empty());
  }

  @Test
  void oneHolderAtATimeWithGrowingTokens() throws Exception {
    Lease a = await(leases.acquire("job-a", "instance-1", TTL, 0)).orElseThrow();
    assertThat(await(leases.acquire("job-a", "instance-2", TTL, 0))).isEmpty();
    assertThat(await(leases.holder("job-a"))).hasValue("instance-1");
    // The holder asking again keeps its grant.
    assertThat(await(leases.acquire("job-a", "instance-1", TTL, 0))).hasValue(a);
    assertThat(await(leases.renew(a, TTL))).isTrue();
    assertThat(await(leases.release(a))).isTrue();
    Lease b = await(leases.acquire("job-a", "instance-2", TTL, 0)).orElseThrow();
    assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
  }

  @Test
  void aFormerHolderCannotRenewOrReleaseTheNextHoldersLease() throws Exception {
    Lease old = await(leases.acquire("job-b", "instance-1", TTL, 0)).orElseThrow();
    // The lease expires while instance-1 is paused (simulated: the key vanishes).
    await(redis.del(List.of(prefix + "lease:{job-b}")));
    Lease next = await(leases.acquire("job-b", "instance-2", TTL, 0)).orElseThrow();
    assertThat(await(leases.renew(old, TTL))).isFalse();
    assertThat(await(leases.release(old))).isFalse();
    assertThat(await(leases.holder("job-b"))).hasValue("instance-2");
    assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
  }

  @Test
  void tokensStayAboveTheFloorWhenRedisLostItsCounter() throws Exception {
    Lease first = await(leases.acquire("job-c", "instance-1", TTL, 0)).orElseThrow();
    await(leases.release(first));
    // Redis restarted empty: the counter is gone, but PostgreSQL remembers token 41.
    await(redis.del(List.of(prefix + "fence:{job-c}")));
    Lease after = await(leases.acquire("job-c", "instance-2", TTL, 41)).orElseThrow();
    assertThat(after.fencingToken()).isEqualTo(42);
  }

  @Test
  void anExpiredLeaseIsFreeAgain() throws Exception {
    Optional<Lease> shortLived =
        await(leases.acquire("job-d", "instance-1", Duration.ofMillis(50), 0));
    assertThat(shortLived).isPresent();
    Thread.sleep(120);
    assertThat(await(leases.acquire("job-d", "instance-2", TTL, 0))).isPresent();
  }
}
