package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.faults.FaultPlan;
import io.slotkeeper.faults.FaultProxy;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import io.slotkeeper.testing.TestInfra;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fault property (issue 24): one slotkeeper, its PostgreSQL (JDBC and the Vert.x client) and
 * its Redis behind {@link FaultProxy}s, three 1-second jobs and clients on the command path. For
 * each seed, the seed's {@link FaultPlan} is injected for {@code faults.window} (default 1.5 s)
 * while the clients work, then every proxy is healed, and:
 *
 * <ol>
 *   <li>no job stalled: each fired a slot within two periods (or its maintenance interval, if
 *       longer) after the heal;
 *   <li>every acknowledged command is in the store (the command ledger, its order once);
 *   <li>no effect was applied twice (one event per command, stream and type; refunds paid once;
 *       stock received equals stock acknowledged);
 *   <li>every {@code faults.replayEvery} seeds and after the last one, with the jobs paused: a
 *       report per completed slot and none of a slot not completed, and every read table equal to a
 *       replay of the store (each projection rebuilt).
 * </ol>
 *
 * It also checks that the Redis event stream has every event stored before the heal within 10 s of
 * it ({@code CHECK_STREAM}, on unless {@code -Dfaults.checkStream=false}).
 *
 * <p>Settings (system properties): {@code faults.seeds} (how many, default 50, from {@code
 * faults.firstSeed}, default 1) or {@code faults.seed} (one seed, with the replay check); {@code
 * faults.window} (milliseconds); {@code faults.replayEvery} (10); {@code faults.checkStream}. A
 * failing seed is printed with its faults and the command that reruns it; {@code
 * target/fault-properties.txt} lists every seed's outcome and the proxies' counts.
 */
class FaultPropertiesIT {

  static final Duration PERIOD = Duration.ofSeconds(1);
  static final Duration LEASE_TTL = Duration.ofSeconds(2);
  // A partition lease whose renewal answer a fault lost is forgotten after its TTL and won again
  // at the next upkeep (a third of the TTL), then the schedules' cursors load: two TTLs.
  static final Duration BOUND = max(PERIOD.multipliedBy(2), LEASE_TTL.multipliedBy(2));
  // How late a fire may be recorded after the bound: the measurement's own delay (the heal's
  // instant is taken after every proxy reported itself healed).
  static final Duration SLACK = Duration.ofMillis(500);
  static final Duration WINDOW = Duration.ofMillis(Long.getLong("faults.window", 1_500));
  static final int REPLAY_EVERY = Integer.getInteger("faults.replayEvery", 10);
  // The Redis event stream catches up after the heal (issue 24: a connection reset mid-batch once
  // stopped the publisher for good; see docs/guarantees.md). -Dfaults.checkStream=false skips it.
  static final boolean CHECK_STREAM =
      Boolean.parseBoolean(System.getProperty("faults.checkStream", "true"));
  static final Path RESULTS = Path.of("target", "fault-properties.txt");

  @TempDir static Path dir;
  static PostgresEndpoint db;
  static FaultProxy postgres;
  static FaultProxy redis;
  static AppHarness h;
  static FaultChecks checks;
  static List<String> jobs;
  static String report;
  static String streamKey;
  static final Deque<String> orders = new ConcurrentLinkedDeque<>();
  static final ConcurrentLinkedQueue<FaultLoad.Ack> allAcks = new ConcurrentLinkedQueue<>();
  static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  static int seedsRun;

  static Stream<Long> seeds() {
    Long one = Long.getLong("faults.seed");
    if (one != null) {
      return Stream.of(one);
    }
    return LongStream.range(first(), first() + Long.getLong("faults.seeds", 50)).boxed();
  }

  static long first() {
    return Long.getLong("faults.firstSeed", 1);
  }

  @BeforeAll
  static void start() throws Exception {
    db = TestInfra.freshDatabase("fault_properties");
    RedisEndpoint r = TestInfra.redis();
    postgres = FaultProxy.start("postgres", db.host(), db.port());
    redis = FaultProxy.start("redis", r.host(), r.port());
    String prefix = "fp-" + RUN;
    report = prefix + "-report";
    streamKey = prefix + ":events";
    jobs = List.of(report, prefix + "-fulfil", prefix + "-settle");
    Path jobsFile = dir.resolve("jobs.yaml");
    Files.writeString(
        jobsFile,
        "jobs:\n"
            + job(report, "daily-report", "ALLOW")
            + "    params: { period: PT1S }\n"
            + job(jobs.get(1), "order-fulfilment", "SKIP")
            + job(jobs.get(2), "refund-settlement", "ALLOW"));
    h =
        new AppHarness(
            "fault_properties",
            new PostgresEndpoint(
                postgres.host(), postgres.port(), db.database(), db.user(), db.password()),
            Map.of(
                "SLOTKEEPER_REDIS_URL",
                "redis://" + redis.host() + ":" + redis.port(),
                "SLOTKEEPER_TIMERS_ENABLED",
                "true",
                "SLOTKEEPER_TIMER_LEASE_TTL",
                LEASE_TTL.toString(),
                "SLOTKEEPER_JOBS_FILE",
                jobsFile.toString(),
                "SLOTKEEPER_STREAM_KEY",
                streamKey,
                "SLOTKEEPER_IDEMPOTENCY_LOCK_TIMEOUT",
                "PT3S",
                // The test server is shared: a few connections, as in make chaos.
                "SLOTKEEPER_JDBC_POOL_SIZE",
                "6",
                "SLOTKEEPER_PG_CLIENT_POOL_SIZE",
                "3"));
    // Faults may get answers outside the contract (a 500 under injected resets); this property
    // checks effects, and its load threads must survive any answer.
    h.checkContract = false;
    checks = new FaultChecks(db);
    Files.createDirectories(RESULTS.getParent());
    Files.writeString(RESULTS, "fault property run " + RUN + "\n");
  }

  private static String job(String name, String handler, String overlap) {
    return "  - name: "
        + name
        + "\n    handler: "
        + handler
        + "\n    schedule: { every: PT1S }\n    catchUp: { policy: LATEST, window: PT1M }\n"
        + "    overlap: "
        + overlap
        + "\n    retry: { maxAttempts: 20, initialBackoff: PT0.2S, multiplier: 2, maxBackoff:"
        + " PT1S }\n    leaseTtl: PT2S\n";
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void faultsLeaveNoStallNoDoubleEffectNoLostCommandAndReadTablesEqualAReplay(long seed)
      throws Exception {
    FaultPlan plan = FaultPlan.random(seed, WINDOW, List.of("postgres", "redis"), 2);
    long t0 = System.currentTimeMillis();
    FaultLoad load = new FaultLoad(h, "fp-" + RUN, seed, orders);
    List<String> violations = new ArrayList<>();
    List<String> stream;
    load.start(2);
    try {
      if (!plan.play(List.of(postgres, redis))) {
        violations.add("a proxy did not heal within 30 s");
      }
      Instant healedAt = Instant.now();
      violations.addAll(stalls(healedAt));
      stream = streamCaughtUp();
    } finally {
      // Whatever failed, the clients end their operations and what they were told is kept.
      load.stop();
      allAcks.addAll(load.acks);
    }
    if (CHECK_STREAM) {
      violations.addAll(stream);
    }
    violations.addAll(load.problems);
    violations.addAll(checks.acknowledgedStored(load.acks));
    violations.addAll(checks.effectsOnce(allAcks));
    seedsRun++;
    boolean replay = seedsRun % REPLAY_EVERY == 0 || isLast(seed);
    if (replay && violations.isEmpty()) {
      violations.addAll(replayCheck(seed));
    }
    String line =
        String.format(
            "seed %d: %s in %d ms, %d acknowledged, %s, stream %s; %s; %s%n",
            seed,
            violations.isEmpty() ? "ok" : "FAILED",
            System.currentTimeMillis() - t0,
            load.acks.size(),
            replay ? "replay compared" : "no replay",
            stream.isEmpty() ? "caught up" : stream,
            postgres.stats(),
            redis.stats());
    Files.writeString(RESULTS, line, StandardOpenOption.APPEND);
    String rerun =
        "\nrerun: make faults FAULT_SEED="
            + seed
            + " (mvn -pl services/app test -Dtest=FaultPropertiesIT -Dfaults.seed="
            + seed
            + "); the seeds before it built the state it met: if it passes alone, rerun"
            + " -Dfaults.firstSeed="
            + first()
            + " -Dfaults.seeds="
            + (seed - first() + 1)
            + "\n";
    if (!violations.isEmpty()) {
      System.out.println("FAULT PROPERTY FAILED, " + plan.describe() + "\n" + violations + rerun);
    }
    assertThat(violations).as(plan.describe() + rerun).isEmpty();
  }

  /** Every job fires within the bound after the heal; the violations of those that did not. */
  private static List<String> stalls(Instant healedAt) throws Exception {
    Instant until = healedAt.plus(BOUND).plus(SLACK);
    List<String> out = new ArrayList<>();
    for (String job : jobs) {
      long deadline = System.currentTimeMillis() + BOUND.plus(SLACK).plusSeconds(1).toMillis();
      FaultChecks.Fires fires = checks.fires(job, healedAt);
      while (fires.firstAfter() == null && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
        fires = checks.fires(job, healedAt);
      }
      if (fires.firstAfter() == null || fires.firstAfter().isAfter(until)) {
        out.add(
            String.format(
                "job %s stalled: no slot fired within %d ms (+%d ms) after the faults ended at %s;"
                    + " first fire after: %s, last: %s",
                job,
                BOUND.toMillis(),
                SLACK.toMillis(),
                healedAt,
                fires.firstAfter(),
                fires.last()));
      }
    }
    return out;
  }

  /**
   * The Redis stream has every event stored before the heal within 10 s of it; the violation, if
   * not.
   */
  private static List<String> streamCaughtUp() throws Exception {
    long head = checks.head();
    // Unchecked, it is read once for the results file: no wait on a stream known to stall.
    long deadline = System.currentTimeMillis() + (CHECK_STREAM ? 10_000 : 0);
    long published = 0;
    do {
      published = FaultChecks.streamPosition(TestInfra.redis(), streamKey);
      if (published >= head) {
        return List.of();
      }
      Thread.sleep(100);
    } while (System.currentTimeMillis() < deadline);
    return List.of(
        "event stream "
            + streamKey
            + (CHECK_STREAM ? " stalled at position " : " at position ")
            + published
            + " of "
            + head);
  }

  private static boolean isLast(long seed) {
    return seeds().reduce((a, b) -> b).map(last -> last == seed).orElse(true);
  }

  /**
   * With the jobs paused and the projections caught up: reports match completed runs, and each
   * projection, rebuilt from the store, writes the rows it had (those at or below the store's head
   * when they were copied).
   */
  private static List<String> replayCheck(long seed) throws Exception {
    List<String> out = new ArrayList<>();
    for (String job : jobs) {
      control(job, "pause", seed);
    }
    try {
      // A slot running when the jobs were paused finishes; one whose run its holder lost track of
      // (the fire's answer or the completion lost to a fault) is taken over after a lease TTL.
      awaitProjections();
      long deadline = System.currentTimeMillis() + LEASE_TTL.multipliedBy(4).toMillis();
      while (checks.firedSlots(jobs) > 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
      }
      awaitProjections();
      out.addAll(checks.reportsMatchRuns(report));
      long head = checks.keepLiveCopies();
      for (String p : FaultChecks.PROJECTIONS) {
        h.app.writeModel().rebuild(p);
      }
      deadline = System.currentTimeMillis() + 60_000;
      List<String> differences = checks.replayDifferences(head);
      while (!differences.isEmpty() && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
        differences = checks.replayDifferences(head);
      }
      out.addAll(differences);
    } finally {
      for (String job : jobs) {
        control(job, "resume", seed);
      }
    }
    return out;
  }

  private static void control(String job, String action, long seed) {
    HttpResponse<String> r =
        h.post(
            "/v1/jobs/" + job + "/" + action,
            AppHarness.OPERATOR,
            job + "-" + action + "-" + seed,
            "");
    assertThat(r.statusCode()).as(action + " " + job + ": " + r.body()).isEqualTo(200);
  }

  /** Waits (up to 60 s) until every projection running here has caught up with the store. */
  private static void awaitProjections() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      h.app.writeModel().projectionLag().poll();
      Map<String, Long> lag = h.app.writeModel().projectionLag().lag();
      // Every projection must be measured (running here) and caught up.
      if (FaultChecks.PROJECTIONS.stream().allMatch(p -> lag.getOrDefault(p, -1L) == 0)) {
        return;
      }
      Thread.sleep(100);
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
