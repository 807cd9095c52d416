package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.InMemoryScheduleCatalog;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.testing.TestInfra;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A schedule created, changed or deleted in the catalog takes effect on the engine that holds its
 * partition within one second: created, it plans from now (nothing before it existed); changed, the
 * new definition plans from the ledger and the change, and no slot is fired again; deleted, it
 * stops.
 */
class CatalogChangesIT {

  private final List<TimerInstance> instances = new ArrayList<>();
  private final PostgresEndpoint db = TestInfra.freshDatabase("catalog-changes");
  private final String leasePrefix = "slotkeeper-test:" + UUID.randomUUID() + ":";

  @AfterEach
  void tearDown() throws Exception {
    for (TimerInstance i : instances) {
      i.close();
    }
  }

  private static JobDefinition schedule(String name, String every) {
    return JobsFile.parse(
            "jobs:\n  - name: "
                + name
                + "\n    handler: noop\n    schedule: { every: "
                + every
                + " }\n    catchUp: { policy: ALL, window: PT10M }\n    leaseTtl: PT2S\n",
            "test-jobs")
        .jobs()
        .get(0);
  }

  private long count(String sql) {
    return TestInfra.queryLong(db, sql);
  }

  @Test
  void aCreatedChangedAndDeletedScheduleTakesEffectWithinASecond() throws Exception {
    InMemoryScheduleCatalog catalog = new InMemoryScheduleCatalog();
    catalog.put(schedule("base", "PT1S"));
    TimerInstance engine =
        new TimerInstance(
            "catalog",
            db,
            leasePrefix,
            catalog,
            model -> Map.<String, JobHandler>of("noop", run -> Map.of()),
            SlotClock.system(),
            new Timers.Settings(true, 4, Duration.ofSeconds(2)));
    instances.add(engine);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> engine.timers.partitions().orElseThrow().held().size() == 4);
    PartitionTimers timers = engine.timers.engine();

    // Created: a timer within a second, its first slot no earlier than its creation (less the
    // planner's one-second grace), and fired.
    Instant created = Instant.now();
    JobDefinition fresh = schedule("fresh", "PT1S");
    catalog.put(fresh);
    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> timers.timer("fresh").isPresent());
    String records = " FROM job_runs WHERE job = 'fresh'";
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> count("SELECT count(*)" + records + " AND status = 'COMPLETED'") > 0);
    assertThat(
            count("SELECT count(*)" + records + " AND nominal < '" + created.minusSeconds(1) + "'"))
        .isZero();
    Thread.sleep(2_000);

    // Changed: every two seconds from the change on, the slots recorded so far never again.
    Instant changed = Instant.now();
    JobDefinition slower = schedule("fresh", "PT2S");
    catalog.put(slower);
    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> timers.timer("fresh").map(t -> t.job().equals(slower)).orElse(false));
    Thread.sleep(5_000);
    String afterChange = records + " AND nominal > '" + changed.plusSeconds(1) + "'";
    assertThat(count("SELECT count(*)" + afterChange)).isGreaterThanOrEqualTo(2);
    assertThat(
            count(
                "SELECT count(*)"
                    + afterChange
                    + " AND extract(epoch FROM nominal)::bigint % 2 <> 0"))
        .isZero();
    assertThat(
            count("SELECT count(*)" + records + " AND (attempts <> 1 OR duplicates_rejected > 0)"))
        .isZero();

    // Deleted: the timer stops within a second, and nothing is fired after.
    Instant deleted = Instant.now();
    catalog.remove("fresh");
    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> timers.timer("fresh").isEmpty());
    Thread.sleep(3_000);
    assertThat(
            count("SELECT count(*)" + records + " AND nominal > '" + deleted.plusSeconds(1) + "'"))
        .isZero();
    // The schedule that did not change kept its pace throughout.
    assertThat(count("SELECT count(*) FROM job_runs WHERE job = 'base' AND attempts <> 1"))
        .isZero();
  }
}
