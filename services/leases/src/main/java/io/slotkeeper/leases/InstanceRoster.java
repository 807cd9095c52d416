package io.slotkeeper.leases;

import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The instances that share a set of leases, announced in Redis: a sorted set of instance IDs scored
 * by their last heartbeat (this instance's wall clock, in milliseconds). An instance counts as live
 * while its heartbeat is younger than the liveness window; older entries are dropped by whoever
 * beats next. From the count, each instance derives its fair share of the leases.
 */
public final class InstanceRoster {

  // KEYS: roster. ARGV: instance, now ms, oldest live ms. Beats, counts and reads the oldest beat
  // in one round trip.
  private static final String BEAT =
      "redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])\n"
          + "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])\n"
          + "local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')\n"
          + "return {redis.call('ZCARD', KEYS[1]), oldest[2]}";

  /**
   * The roster after a beat: how many instances are live (≥ 1), and when (this instance's wall
   * clock, ms) the one that beat longest ago ages out unless it beats again.
   */
  public record Beat(int live, long nextAgeOutMillis) {}

  private final RedisAPI redis;
  private final String key;
  private final Duration liveness;
  private final LongSupplier millis;

  /**
   * @param name the roster's name (the leases the instances share)
   * @param liveness how long a heartbeat keeps its instance live
   */
  public InstanceRoster(
      RedisAPI redis, String prefix, String name, Duration liveness, LongSupplier millis) {
    this.redis = redis;
    this.key = prefix + "roster:{" + name + "}";
    this.liveness = liveness;
    this.millis = millis;
  }

  /** Announces {@code instance} as live now and answers the roster. */
  public Future<Beat> beat(String instance) {
    long now = millis.getAsLong();
    return redis
        .eval(
            List.of(
                BEAT,
                "1",
                key,
                instance,
                Long.toString(now),
                Long.toString(now - liveness.toMillis())))
        .map(
            r ->
                new Beat(
                    Math.max(1, r.get(0).toInteger()),
                    Long.parseLong(r.get(1).toString()) + liveness.toMillis()));
  }

  /** Leaves the roster (a clean stop): the others take up the share at their next beat. */
  public Future<Void> leave(String instance) {
    return redis.zrem(List.of(key, instance)).mapEmpty();
  }

  /** The share of {@code total} leases each of {@code live} instances aims at: rounded up. */
  public static int fairShare(int total, int live) {
    return (total + Math.max(1, live) - 1) / Math.max(1, live);
  }
}
