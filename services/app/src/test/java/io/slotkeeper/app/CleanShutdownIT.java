package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.testing.TestInfra;
import io.slotkeeper.timers.Partitions;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean stop hands the jobs over at once: the engine releases its partitions' leases and leaves
 * the roster while Redis still answers, so another instance need not wait for them to expire.
 */
class CleanShutdownIT {

  @TempDir Path dir;

  @Test
  void aCleanStopReleasesTheLeasesItHolds() throws Exception {
    String job = "shutdown-" + UUID.randomUUID().toString().substring(0, 8);
    Path jobs = dir.resolve("jobs.yaml");
    // A TTL far longer than the test: only a release removes the key before the test ends.
    Files.writeString(
        jobs,
        "jobs:\n"
            + "  - name: "
            + job
            + "\n"
            + "    handler: noop\n"
            + "    schedule: { every: PT1H }\n"
            + "    leaseTtl: PT5M\n");
    Vertx vertx = Vertx.vertx();
    try {
      RedisAPI redis =
          RedisAPI.api(Redis.createClient(vertx, TestInfra.redis().connectionString()));
      AppHarness h =
          new AppHarness(
              "clean_shutdown",
              Map.of("SLOTKEEPER_TIMERS_ENABLED", "true", "SLOTKEEPER_JOBS_FILE", jobs.toString()));
      // The lease of the job's partition (the default count), in the deployment's namespace.
      Partitions partitions = new Partitions(64);
      String prefix = RedisLeases.prefixFor(h.db.database());
      String leaseKey = prefix + "lease:{" + partitions.leaseName(partitions.of(job)) + "}";
      String roster = prefix + "roster:{timer-partitions}";
      Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> exists(redis, leaseKey));
      h.close();
      assertThat(exists(redis, leaseKey)).as("lease key after a clean stop").isFalse();
      // Gone from the roster too: the others take its share up at their next round.
      assertThat(redis.zscore(roster, "test-clean_shutdown").await(5, TimeUnit.SECONDS))
          .as("roster entry after a clean stop")
          .isNull();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static boolean exists(RedisAPI redis, String key) throws Exception {
    return redis.exists(List.of(key)).await(5, TimeUnit.SECONDS).toInteger() == 1;
  }
}
