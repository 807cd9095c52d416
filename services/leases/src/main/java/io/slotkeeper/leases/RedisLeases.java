package io.slotkeeper.leases;

import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Leases in Redis: acquired with an atomic script ({@code SET NX PX} plus a fencing counter),
 * renewed and released only by their holder (compare-and-set in Lua; a plain {@code DEL} could
 * remove another holder's lease).
 *
 * <p>A lease is an optimisation that keeps a job's work on one instance. It is never what makes an
 * effect happen once: that is the slot ledger and the deterministic command IDs in PostgreSQL. The
 * fencing counter is seeded from a floor the caller reads from PostgreSQL, so tokens keep growing
 * even when Redis restarts empty.
 */
public final class RedisLeases {

  // KEYS: lease, fence counter. ARGV: owner, ttl ms, fence floor.
  private static final String ACQUIRE =
      "local current = redis.call('GET', KEYS[1])\n"
          + "if current then\n"
          + "  local sep = string.find(current, '|', 1, true)\n"
          + "  if string.sub(current, 1, sep - 1) == ARGV[1] then\n"
          + "    redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
          + "    return tonumber(string.sub(current, sep + 1))\n"
          + "  end\n"
          + "  return false\n"
          + "end\n"
          + "local token = redis.call('INCR', KEYS[2])\n"
          + "local floor = tonumber(ARGV[3])\n"
          + "if token <= floor then\n"
          + "  token = floor + 1\n"
          + "  redis.call('SET', KEYS[2], token)\n"
          + "end\n"
          + "redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])\n"
          + "return token";
  // KEYS: lease. ARGV: value, ttl ms.
  private static final String RENEW =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
          + "  return redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
          + "end\n"
          + "return 0";
  // KEYS: lease. ARGV: value.
  private static final String RELEASE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
          + "  return redis.call('DEL', KEYS[1])\n"
          + "end\n"
          + "return 0";

  // KEYS: leases. The milliseconds each has left (PTTL: negative when free).
  private static final String REMAINING =
      "local out = {}\n"
          + "for i, key in ipairs(KEYS) do\n"
          + "  out[i] = redis.call('PTTL', key)\n"
          + "end\n"
          + "return out";

  private final RedisAPI redis;
  private final String prefix;

  public RedisLeases(RedisAPI redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  /**
   * The key prefix of the leases and the roster of the deployment whose PostgreSQL database is
   * {@code database}: deployments that share a Redis share nothing else.
   */
  public static String prefixFor(String database) {
    return "slotkeeper:" + database + ":";
  }

  /**
   * Grants the lease to {@code owner} if nobody else holds it (a holder asking again keeps its
   * token and gets a fresh TTL). Empty when another owner holds it.
   */
  public Future<Optional<Lease>> acquire(String name, String owner, Duration ttl, long fenceFloor) {
    if (owner.contains("|")) {
      return Future.failedFuture(
          new IllegalArgumentException("owner must not contain '|': " + owner));
    }
    return redis
        .eval(
            List.of(
                ACQUIRE,
                "2",
                leaseKey(name),
                fenceKey(name),
                owner,
                Long.toString(ttl.toMillis()),
                Long.toString(fenceFloor)))
        .map(
            r ->
                r == null
                    ? Optional.<Lease>empty()
                    : Optional.of(new Lease(name, owner, r.toLong())));
  }

  /** Extends the lease; false when it was lost (expired, or taken by another owner). */
  public Future<Boolean> renew(Lease lease, Duration ttl) {
    return redis
        .eval(
            List.of(
                RENEW, "1", leaseKey(lease.name()), lease.value(), Long.toString(ttl.toMillis())))
        .map(RedisLeases::isOne);
  }

  /** Gives the lease up; false when it was no longer ours. */
  public Future<Boolean> release(Lease lease) {
    return redis
        .eval(List.of(RELEASE, "1", leaseKey(lease.name()), lease.value()))
        .map(RedisLeases::isOne);
  }

  /**
   * The roster of the instances that share leases under {@code name}, in the same Redis and
   * namespace; an instance is live for {@code liveness} after its last heartbeat.
   */
  public InstanceRoster roster(String name, Duration liveness) {
    return new InstanceRoster(redis, prefix, name, liveness, System::currentTimeMillis);
  }

  /** The current holder of the lease, if any. */
  public Future<Optional<String>> holder(String name) {
    return grant(name).map(g -> g.map(Lease::owner));
  }

  /** The lease's current grant (its holder and fencing token), if anyone holds it. */
  public Future<Optional<Lease>> grant(String name) {
    return grants(List.of(name)).map(g -> g.get(0));
  }

  /**
   * The current holders of many leases in one round trip (one {@code MGET}): for each name, its
   * holder, or empty when the lease is free.
   */
  public Future<List<Optional<String>>> holders(List<String> names) {
    return grants(names).map(grants -> grants.stream().map(g -> g.map(Lease::owner)).toList());
  }

  /**
   * The current grants of many leases in one round trip (one {@code MGET}): for each name, its
   * holder and fencing token (read together from the one stored value), or empty when free.
   */
  public Future<List<Optional<Lease>>> grants(List<String> names) {
    if (names.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return redis
        .mget(names.stream().map(this::leaseKey).toList())
        .map(
            r -> {
              List<Optional<Lease>> out = new ArrayList<>(names.size());
              for (int i = 0; i < names.size(); i++) {
                Response v = r.get(i);
                out.add(
                    v == null
                        ? Optional.empty()
                        : Optional.of(Lease.of(names.get(i), v.toString())));
              }
              return out;
            });
  }

  /**
   * How long each lease has left unless renewed, in one round trip: empty for a free lease (or one
   * without expiry, which this class never sets).
   */
  public Future<List<Optional<Duration>>> remaining(List<String> names) {
    if (names.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    List<String> args = new ArrayList<>(names.size() + 2);
    args.add(REMAINING);
    args.add(Integer.toString(names.size()));
    names.forEach(n -> args.add(leaseKey(n)));
    return redis
        .eval(args)
        .map(
            r -> {
              List<Optional<Duration>> out = new ArrayList<>(names.size());
              for (int i = 0; i < names.size(); i++) {
                long millis = r.get(i).toLong();
                out.add(millis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(millis)));
              }
              return out;
            });
  }

  private static boolean isOne(Response r) {
    return r != null && r.toLong() == 1L;
  }

  private String leaseKey(String name) {
    return prefix + "lease:{" + name + "}";
  }

  private String fenceKey(String name) {
    return prefix + "fence:{" + name + "}";
  }
}
