package io.slotkeeper.bench;

import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.timers.Partitions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The partition leases of a fleet, read from Redis with the service's own {@link RedisLeases}:
 * which partitions an instance holds before it is killed, and when every one of them is held by
 * another instance. That moment is the takeover of the leases, apart from the catch-up of the slots
 * that fell due meanwhile.
 */
final class PartitionWatch implements AutoCloseable {

  private static final long POLL_MILLIS = 20;

  private final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  private final Redis client;
  private final RedisLeases leases;
  private final List<String> names;

  /** Watches the {@code count} partitions of the deployment on {@code db}. */
  PartitionWatch(PostgresEndpoint db, int count) {
    client =
        Redis.createClient(
            vertx, new RedisOptions().setConnectionString(Bench.redis().connectionString()));
    leases = new RedisLeases(RedisAPI.api(client), RedisLeases.prefixFor(db.database()));
    Partitions partitions = new Partitions(count);
    names = IntStream.range(0, count).mapToObj(partitions::leaseName).toList();
  }

  /** The partition leases {@code instance} holds now. */
  List<String> heldBy(String instance) {
    List<Optional<Lease>> grants = grants(names);
    return IntStream.range(0, names.size())
        .filter(i -> grants.get(i).filter(g -> g.owner().equals(instance)).isPresent())
        .mapToObj(names::get)
        .toList();
  }

  /**
   * The first moment every lease of {@code watched} is held by an instance other than {@code gone},
   * polled every {@value #POLL_MILLIS} ms; empty when that did not happen by {@code until}.
   */
  Optional<Instant> allTakenOver(List<String> watched, String gone, Instant until) {
    while (Instant.now().isBefore(until)) {
      List<Optional<Lease>> grants = grants(watched);
      Instant read = Instant.now();
      if (grants.stream().allMatch(g -> g.filter(l -> !l.owner().equals(gone)).isPresent())) {
        return Optional.of(read);
      }
      Bench.sleep(POLL_MILLIS);
    }
    return Optional.empty();
  }

  private List<Optional<Lease>> grants(List<String> leaseNames) {
    return leases
        .grants(leaseNames)
        .toCompletionStage()
        .toCompletableFuture()
        .orTimeout(5, TimeUnit.SECONDS)
        .join();
  }

  @Override
  public void close() {
    client.close();
    vertx.close();
  }
}
