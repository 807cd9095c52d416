package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.InMemoryScheduleCatalog;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.testing.InjectedFaults;
import io.slotkeeper.testing.TestInfra;
import io.slotkeeper.timers.SlotRunner.Trigger;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three engines in one JVM (each its own Vert.x, write side and instance ID) share the partitions
 * through Redis: a fair share each, a dead one's partitions taken over when its leases expire, no
 * slot fired twice or lost, and a former holder's fire refused by fencing.
 */
class PartitionSharingIT {

  private static final int PARTITIONS = 12;
  private static final Duration TTL = Duration.ofSeconds(2);
  private static final Timers.Settings SETTINGS = new Timers.Settings(true, PARTITIONS, TTL);
  private static final long PERIOD = PartitionTimers.upkeepPeriod(TTL);

  private final List<TimerInstance> instances = new ArrayList<>();
  private final PostgresEndpoint db = TestInfra.freshDatabase("partition-sharing");
  private final String leasePrefix = "slotkeeper-test:" + UUID.randomUUID() + ":";

  @AfterEach
  void tearDown() throws Exception {
    for (TimerInstance i : instances) {
      i.close();
    }
  }

  private static InMemoryScheduleCatalog schedules(int count) {
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (int i = 0; i < count; i++) {
      yaml.append("  - name: share-")
          .append(i)
          .append("\n    handler: noop\n    schedule: { every: PT1S }\n")
          .append("    catchUp: { policy: ALL, window: PT1M }\n    overlap: ALLOW\n")
          .append("    leaseTtl: PT2S\n");
    }
    return InMemoryScheduleCatalog.of(JobsFile.parse(yaml.toString(), "test-jobs"));
  }

  private TimerInstance start(String id, InMemoryScheduleCatalog catalog) throws Exception {
    TimerInstance i =
        new TimerInstance(
            id,
            db,
            leasePrefix,
            catalog,
            model -> Map.<String, JobHandler>of("noop", run -> Map.of()),
            SlotClock.system(),
            SETTINGS);
    instances.add(i);
    return i;
  }

  private static int held(TimerInstance i) {
    return i.timers.partitions().orElseThrow().held().size();
  }

  private long count(String sql) {
    return TestInfra.queryLong(db, sql);
  }

  @Test
  void threeEnginesShareThePartitionsAndTakeOverADeadOneWithoutFiringASlotTwice() throws Exception {
    int jobs = 24;
    InMemoryScheduleCatalog catalog = schedules(jobs);
    for (int n = 0; n < 3; n++) {
      start("engine-" + n, catalog);
    }
    // A fair share each: ceil(12 / 3) = 4, and together all twelve.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> instances.stream().allMatch(i -> held(i) == PARTITIONS / 3));
    Instant begin = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    Thread.sleep(2_000);
    // Mid-second: the dead engine's last slots have their answers (the handler does nothing), so
    // every slot can be held to one attempt.
    Thread.sleep(1_500 - Instant.now().toEpochMilli() % 1_000);

    TimerInstance dead = instances.get(0);
    List<Integer> orphaned = dead.timers.partitions().orElseThrow().held();
    long killed = System.nanoTime();
    dead.stopTimers(); // its Redis client goes first: the leases expire, nobody releases them
    List<TimerInstance> survivors = instances.subList(1, 3);
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> survivors.stream().mapToInt(PartitionSharingIT::held).sum() == PARTITIONS);
    long takeover = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
    System.out.printf(
        "partitions %s of the dead engine taken over in %d ms (TTL %d ms, period %d ms)%n",
        orphaned, takeover, TTL.toMillis(), PERIOD);
    // Its leases expire within a TTL of its last renewal and its heartbeat ages out within a TTL;
    // the survivors share again at those moments, not at their next upkeep (which would add up to
    // a period, and a period again when the roster and the leases expire in different rounds).
    assertThat(takeover).isLessThanOrEqualTo(TTL.toMillis() + PERIOD);
    assertThat(survivors).allMatch(i -> held(i) == PARTITIONS / 2);

    Thread.sleep(3_000);
    Instant end = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(1);
    String window = " FROM job_runs WHERE nominal BETWEEN '" + begin + "' AND '" + end + "'";
    long expected = jobs * (Duration.between(begin, end).toSeconds() + 1);
    // None lost: every slot of every job, the takeover's gap included, has its record ...
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> count("SELECT count(*)" + window + " AND status = 'COMPLETED'") == expected);
    assertThat(count("SELECT count(*)" + window)).isEqualTo(expected);
    // ... and none fired twice: one attempt, no duplicate fire refused.
    assertThat(
            count("SELECT count(*)" + window + " AND (attempts <> 1 OR duplicates_rejected > 0)"))
        .isZero();
    // After the takeover, the survivors fire every schedule, the dead engine's among them.
    Instant afterTakeover = end.minusSeconds(2);
    assertThat(
            count(
                "SELECT count(DISTINCT job)"
                    + window
                    + " AND nominal > '"
                    + afterTakeover
                    + "' AND instance_id <> 'engine-0'"))
        .isEqualTo(jobs);
  }

  @Test
  void aFormerHolderOfAPartitionHasItsFireRefusedByFencing() throws Exception {
    Database.open(db, 2, "migrate").close();
    // A token recorded by another job (say under the old per-job leases): the floor of every
    // partition is the highest token of any job, so a partition's first token is above it.
    InjectedFaults.apply(
        db,
        "INSERT INTO job_fences (job, highest_token, updated_at) VALUES ('legacy', 500, now())");
    InMemoryScheduleCatalog catalog = schedules(1);
    JobDefinition job = catalog.get("share-0").orElseThrow();
    TimerInstance first = start("first", catalog);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> first.timers.heldLease(job.name()).isPresent());
    long stale = first.timers.heldLease(job.name()).orElseThrow().fencingToken();
    assertThat(stale).isGreaterThan(500);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count("SELECT count(*) FROM job_runs WHERE fencing_token = " + stale) > 0);

    // The holder stops answering (its leases expire), another engine takes the partition over
    // and fires under its newer token.
    first.stopTimers();
    TimerInstance second = start("second", catalog);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> second.timers.heldLease(job.name()).isPresent());
    long current = second.timers.heldLease(job.name()).orElseThrow().fencingToken();
    assertThat(current).isGreaterThan(stale);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count("SELECT count(*) FROM job_runs WHERE fencing_token = " + current) > 0);

    // The former holder wakes up and fires the next slot under its old token: refused.
    Instant next = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(30);
    var refused =
        second
            .runner
            .claim(job, next, stale, 1, Trigger.TIMER)
            .transform(done -> io.vertx.core.Future.succeededFuture(done))
            .await(10, TimeUnit.SECONDS);
    assertThat(refused.failed()).isTrue();
    assertThat(refused.cause()).hasStackTraceContaining("StaleFencingToken");
    assertThat(count("SELECT count(*) FROM job_runs WHERE nominal = '" + next + "'")).isZero();
  }
}
