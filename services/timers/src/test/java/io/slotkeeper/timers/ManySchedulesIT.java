package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.InMemoryScheduleCatalog;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.testing.TestInfra;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * 2,000 schedules of 20-second intervals, spread over the interval by their anchors (100 slots a
 * second, what the write side of one test JVM sustains on two shared cores), on one engine: slot
 * lag p99 under 100 ms, and the statements the timers send to PostgreSQL per upkeep period a
 * constant per partition, whatever the number of schedules.
 */
class ManySchedulesIT {

  private static final int SCHEDULES = 2_000;
  private static final Duration INTERVAL = Duration.ofSeconds(20);
  private static final int PARTITIONS = 8;
  private static final Duration TTL = Duration.ofSeconds(3);
  private static final long PERIOD = PartitionTimers.upkeepPeriod(TTL);

  private final PostgresEndpoint db = TestInfra.freshDatabase("many-schedules");
  private final String leasePrefix = "slotkeeper-test:" + UUID.randomUUID() + ":";
  private TimerInstance engine;

  @AfterEach
  void tearDown() throws Exception {
    if (engine != null) {
      engine.close();
    }
  }

  private static InMemoryScheduleCatalog schedules() {
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (int i = 0; i < SCHEDULES; i++) {
      Instant anchor = Instant.EPOCH.plusMillis(i * INTERVAL.toMillis() / SCHEDULES);
      yaml.append("  - name: many-")
          .append(i)
          .append("\n    handler: noop\n    schedule: { every: ")
          .append(INTERVAL)
          .append(", anchor: \"")
          .append(anchor)
          .append("\" }\n    catchUp: { policy: LATEST, window: PT1M }\n    overlap: ALLOW\n")
          .append("    leaseTtl: PT3S\n");
    }
    return InMemoryScheduleCatalog.of(JobsFile.parse(yaml.toString(), "test-jobs"));
  }

  private long count(String sql) {
    return TestInfra.queryLong(db, sql);
  }

  @Test
  void twoThousandSchedulesFireOnTimeWithAConstantNumberOfQueriesPerPeriod() throws Exception {
    engine =
        new TimerInstance(
            "many",
            db,
            leasePrefix,
            schedules(),
            model -> Map.<String, JobHandler>of("noop", run -> Map.of()),
            SlotClock.system(),
            new Timers.Settings(true, PARTITIONS, TTL));
    // Warm-up: every schedule has fired (its cursor is loaded; the JIT has seen the path).
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> count("SELECT count(DISTINCT job) FROM job_runs") == SCHEDULES);
    Thread.sleep(INTERVAL.toMillis());

    Map<String, Long> before = snapshot();
    // The cursors were read in batches: a few statements per partition gained and per batch of
    // schedules (one at a time, the same loads took two to four per schedule: 4,000 or more).
    long cursorReads =
        before.entrySet().stream()
            .filter(e -> e.getKey().contains("job_first_planned"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    System.out.printf("cursor loads of %d schedules: %d statements%n", SCHEDULES, cursorReads);
    assertThat(cursorReads).isLessThanOrEqualTo(4L * (PARTITIONS + SCHEDULES / CursorLoads.BATCH));
    // The loads are on the meters an operator watches during a takeover: every batch timed, none
    // waiting once every schedule has fired.
    MeterRegistry meters = engine.runner.metrics().registry();
    assertThat(meters.get("slotkeeper.timer.cursor.load").tag("outcome", "ok").timer().count())
        .isGreaterThanOrEqualTo(SCHEDULES / CursorLoads.BATCH);
    assertThat(meters.get("slotkeeper.timer.cursor.loads.waiting").gauge().value()).isZero();
    Instant begin = Instant.now();
    long measuredMillis = 2 * INTERVAL.toMillis();
    Thread.sleep(measuredMillis);
    Instant end = Instant.now();
    Map<String, Long> after = snapshot();

    long periods = measuredMillis / PERIOD;
    Map<String, Long> sent = new HashMap<>();
    after.forEach((sql, n) -> sent.put(sql, n - before.getOrDefault(sql, 0L)));
    sent.values().removeIf(n -> n == 0);
    long total = sent.values().stream().mapToLong(Long::longValue).sum();
    System.out.printf(
        "%d schedules, %d partitions: %d statements in %d periods (%.1f per period), counts %s%n",
        SCHEDULES, PARTITIONS, total, periods, (double) total / periods, sent.values());
    // Per period and partition: one pause read and one stalled-slots read (plus one upkeep that
    // may fall either side of the window's edges); no statement per schedule.
    assertThat(sent).hasSize(2);
    assertThat(total).isLessThanOrEqualTo(2L * PARTITIONS * (periods + 2));
    assertThat(total).isGreaterThanOrEqualTo(2L * PARTITIONS * (periods - 1));

    String window =
        " FROM job_runs WHERE nominal BETWEEN '" + begin + "' AND '" + end.minusSeconds(1) + "'";
    long slots = count("SELECT count(*)" + window);
    long p99 = count("SELECT percentile_disc(0.99) WITHIN GROUP (ORDER BY lag_ms)" + window);
    long max = count("SELECT max(lag_ms)" + window);
    System.out.printf("%d slots fired in the window: lag p99 %d ms, max %d ms%n", slots, p99, max);
    assertThat(slots).isGreaterThanOrEqualTo(SCHEDULES * 2L - SCHEDULES / 10);
    assertThat(count("SELECT count(*)" + window + " AND status <> 'COMPLETED'")).isZero();
    assertThat(p99).isLessThan(100);
  }

  private Map<String, Long> snapshot() {
    Map<String, Long> out = new HashMap<>();
    engine.statements.forEach((sql, n) -> out.put(sql, ((LongAdder) n).sum()));
    return out;
  }
}
