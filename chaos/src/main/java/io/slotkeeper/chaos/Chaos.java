package io.slotkeeper.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.slotkeeper.faults.FaultPlan;
import io.slotkeeper.faults.FaultProxy;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.embedded.EmbeddedPostgresServer;
import io.slotkeeper.platform.embedded.EmbeddedRedisServer;
import io.slotkeeper.platform.embedded.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code make chaos}: three slotkeeper instances on one embedded PostgreSQL and one embedded Redis
 * (both started and stopped here, on private ports, data under /tmp), a 1-second job, a 1-second
 * schedule whose HTTP target is a {@link Receiver} in this process (its own database on the same
 * server, reached directly), HTTP clients retrying with their keys and two SSE subscribers, while
 * instances are killed and restarted, Redis restarts, the receiver's database refuses connections
 * for 8 s, PostgreSQL crashes (stop -m immediate) and is down for 10 s and an instance is paused
 * past its lease; all along, the instances reach PostgreSQL and Redis through {@link FaultProxy}s
 * that play a seeded {@link FaultPlan} (connection and statement resets, latency, stalls,
 * blackholes). Then the checks; exit code 0 only if every one passes. Settings: {@code
 * CHAOS_SECONDS} (default 180), {@code CHAOS_CLIENTS} (4), {@code CHAOS_JAR}
 * (services/app/target/slotkeeper.jar), {@code CHAOS_RESULTS} (chaos/results), {@code
 * CHAOS_KILL_EVERY} (20), {@code CHAOS_FAULT_SEED} (the fault plan's seed; default from the clock,
 * printed and in the report).
 */
public final class Chaos {

  static final String JOB = "chaos-report";

  /**
   * The HTTP-target schedule, whose {@link Receiver} counts effects. Named to share chaos-report's
   * timer partition (of the default 64), so the paused lease holder holds both.
   */
  static final String DELIVERIES = "chaos-signed-calls";

  /** How long one delivery waits for the receiver's answer (the target's {@code timeout}). */
  static final Duration TARGET_TIMEOUT = Duration.ofSeconds(4);

  /**
   * How long after its last fire slotkeeper may still send a slot again: the target's timeout, the
   * longest backoff (5 s) and a lease TTL (3 s, a takeover), plus 3 s for the ledger's projection.
   * An effect whose slot is not COMPLETED is in flight only within it.
   */
  static final Duration RETRY_WINDOW = TARGET_TIMEOUT.plusSeconds(5 + 3 + 3);

  /**
   * How long each job may go without a fire once the faults are over: two periods, or the
   * maintenance interval (a third of the lease's TTL) when longer; shipped jobs slower than the
   * settling time are not judged.
   */
  static final Map<String, Duration> STALL_BOUNDS =
      Map.of(
          JOB,
          Duration.ofSeconds(2),
          DELIVERIES,
          Duration.ofSeconds(2),
          "order-fulfilment",
          Duration.ofSeconds(20));

  private static final String CLIENT_TOKEN = "chaos-client-token-" + UUID.randomUUID();
  private static final String OPERATOR_TOKEN = "chaos-operator-token-" + UUID.randomUUID();
  private static final String RECEIVER_SECRET = "whsec_chaos_" + UUID.randomUUID();

  private final long seconds = longEnv("CHAOS_SECONDS", 180);
  private final int clients = (int) longEnv("CHAOS_CLIENTS", 4);
  private final long killEvery = longEnv("CHAOS_KILL_EVERY", 20);
  private final long faultSeed = longEnv("CHAOS_FAULT_SEED", System.currentTimeMillis() % 100_000);
  private final Path jar =
      Path.of(env("CHAOS_JAR", "services/app/target/slotkeeper.jar")).toAbsolutePath();
  private final Path results = Path.of(env("CHAOS_RESULTS", "chaos/results"));
  private final String runId =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
          .withZone(ZoneOffset.UTC)
          .format(Instant.now());

  private final List<Map<String, Object>> faults = new CopyOnWriteArrayList<>();
  private final List<String> unexpectedExits = new CopyOnWriteArrayList<>();
  private final List<Instance> instances = new ArrayList<>();
  private Path dataDir;
  private int pgPort;
  private int redisPort;
  private volatile EmbeddedPostgresServer pg;
  private volatile EmbeddedRedisServer redis;
  private FaultProxy pgProxy;
  private FaultProxy redisProxy;
  private Receiver receiver;
  private long t0;
  // What the database fault did: a run whose crash did not happen (or left no sign) must not pass.
  private volatile String postgresCrash = "not run";

  public static void main(String[] args) throws Exception {
    int code;
    try {
      code = new Chaos().run();
    } catch (Exception e) {
      e.printStackTrace();
      code = 2;
    }
    System.exit(code);
  }

  private int run() throws Exception {
    if (!Files.exists(jar)) {
      System.err.println("chaos: " + jar + " not found; build it first (make build)");
      return 2;
    }
    dataDir = Files.createTempDirectory(Path.of("/tmp"), "slotkeeper-chaos-");
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    say("data and logs in " + dataDir + "; duration " + seconds + " s");
    pgPort = FreePorts.find();
    redisPort = FreePorts.find();
    pg = EmbeddedPostgresServer.start(dataDir, pgPort);
    redis = EmbeddedRedisServer.start(dataDir, redisPort);
    pgProxy = FaultProxy.start("postgres", pg.endpoint().host(), pgPort);
    redisProxy = FaultProxy.start("redis", "127.0.0.1", redisPort);
    receiver = Receiver.start(pg.endpoint(), RECEIVER_SECRET, TARGET_TIMEOUT, faultSeed);
    ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(4);
    Map<String, Object> report = new LinkedHashMap<>();
    boolean passed = false;
    try {
      passed = exercise(scheduler, report);
    } finally {
      scheduler.shutdownNow();
      for (Instance i : instances) {
        i.kill();
      }
      closeQuietly(receiver);
      closeQuietly(pgProxy);
      closeQuietly(redisProxy);
      closeQuietly(redis);
      closeQuietly(pg);
    }
    report.put("verdict", passed ? "PASS" : "FAIL");
    Files.createDirectories(results);
    Path file = results.resolve(runId + ".json");
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .findAndRegisterModules()
        .writeValue(file.toFile(), report);
    say("report: " + file + (passed ? "" : "; instance logs kept in " + dataDir));
    if (passed) {
      deleteTree(dataDir);
    }
    return passed ? 0 : 1;
  }

  private boolean exercise(ScheduledExecutorService scheduler, Map<String, Object> report)
      throws Exception {
    Path jobs = dataDir.resolve("jobs.yaml");
    Files.writeString(jobs, jobsFile(receiver.url()));
    Map<String, String> env = new LinkedHashMap<>();
    PostgresEndpoint direct = pg.endpoint();
    env.put(
        "SLOTKEEPER_PG_URL",
        new PostgresEndpoint(
                pgProxy.host(), pgProxy.port(), direct.database(), direct.user(), direct.password())
            .url());
    env.put("SLOTKEEPER_REDIS_URL", "redis://" + redisProxy.host() + ":" + redisProxy.port());
    env.put("SLOTKEEPER_CLIENT_TOKEN", CLIENT_TOKEN);
    env.put("SLOTKEEPER_OPERATOR_TOKEN", OPERATOR_TOKEN);
    env.put("SLOTKEEPER_JOBS_FILE", jobs.toString());
    env.put("SLOTKEEPER_HTTP_TARGETS_ALLOW", "127.0.0.1:" + receiver.port());
    env.put("SLOTKEEPER_SECRET_" + Receiver.SECRET_REF, RECEIVER_SECRET);
    // The partitions' leases: the chaos job's 3 s, so that a paused holder is taken over as fast.
    env.put("SLOTKEEPER_TIMER_LEASE_TTL", "PT3S");
    env.put("SLOTKEEPER_LOG_FORMAT", "text");
    env.put("SLOTKEEPER_DATA_DIR", dataDir.resolve("unused").toString());
    env.put("SLOTKEEPER_IDEMPOTENCY_LOCK_TIMEOUT", "PT10S");
    env.put("SLOTKEEPER_JDBC_POOL_SIZE", "6");
    env.put("SLOTKEEPER_PG_CLIENT_POOL_SIZE", "4");
    for (int n = 1; n <= 3; n++) {
      instances.add(
          new Instance(
              "chaos-" + n,
              FreePorts.find(),
              FreePorts.find(),
              jar,
              dataDir.resolve("instance-" + n + ".log"),
              env));
    }
    Checks checks = new Checks(pg.endpoint());
    // The first instance migrates the schema alone; the others start together.
    instances.get(0).start(true);
    require(instances.get(0).awaitReady(180_000), "chaos-1 did not become ready");
    instances.get(1).start(true);
    instances.get(2).start(true);
    require(instances.get(1).awaitReady(180_000), "chaos-2 did not become ready");
    require(instances.get(2).awaitReady(180_000), "chaos-3 did not become ready");
    say("three instances ready");

    List<Subscriber> subscribers =
        List.of(
            new Subscriber("subscriber-1", instances, CLIENT_TOKEN),
            new Subscriber("subscriber-2", instances, CLIENT_TOKEN));
    subscribers.forEach(Subscriber::start);
    Load load = new Load(instances, "chaos-" + runId, CLIENT_TOKEN);
    t0 = System.currentTimeMillis();
    Instant start = Instant.ofEpochMilli(t0);
    load.start(clients);
    scheduleFaults(scheduler);
    receiver.misbehaveUntil(start.plusSeconds(Math.max(1, seconds - 15)));
    FaultPlan plan =
        FaultPlan.random(
            faultSeed,
            Duration.ofSeconds(Math.max(1, seconds - 15)),
            List.of("postgres", "redis"),
            (int) Math.max(1, seconds / 6));
    say("fault plan, " + plan.describe().lines().count() + " lines: seed " + faultSeed);
    Thread player = new Thread(() -> play(plan), "chaos-fault-plan");
    player.start();
    Thread.sleep(seconds * 1000);
    player.join(60_000);
    Instant end = Instant.now();
    say("load and faults end; letting every fault finish");
    scheduler.shutdown();
    scheduler.awaitTermination(60, TimeUnit.SECONDS);
    for (Instance i : instances) {
      if (i.paused()) {
        i.resume();
      }
      if (!i.alive()) {
        i.start(true);
      }
    }
    load.stop();
    List<String> notReady = new ArrayList<>();
    for (Instance i : instances) {
      if (!i.awaitReady(120_000)) {
        say(i.id + " not ready after the run");
        notReady.add(
            i
                + (i.alive()
                    ? " alive but /health/ready not 200 within 120 s"
                    : " exited with " + i.exitCode()));
      }
    }
    Instant quiet = Instant.now();
    say("settling 20 s (takeovers, retries, projections)");
    Thread.sleep(20_000);

    List<Checks.Check> results = new ArrayList<>();
    long upTo = checks.maxPosition();
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline
        && subscribers.stream().anyMatch(s -> s.last() < upTo)) {
      Thread.sleep(500);
    }
    results.add(
        Checks.Check.of(
            "the PostgreSQL crash took effect (crash recovery ran)",
            Map.of("postgresCrash", postgresCrash),
            "recovered".equals(postgresCrash)
                ? List.of()
                : List.of("PostgreSQL: " + postgresCrash)));
    // An instance up but never ready (a start-up that died half-way) must not pass unnoticed.
    results.add(
        Checks.Check.of(
            "every instance ready again after the faults",
            Map.of("instances", instances.size(), "notReady", notReady.size()),
            notReady));
    results.add(checks.slots(JOB, start.plusSeconds(5), end.minusSeconds(5)));
    results.add(checks.effectsOnce(JOB, end.minusSeconds(5)));
    results.add(checks.noStall(STALL_BOUNDS, quiet, Instant.now().minusSeconds(2)));
    results.add(checks.slots(DELIVERIES, start.plusSeconds(5), end.minusSeconds(5)));
    results.add(checks.deliveries(DELIVERIES, receiver, RETRY_WINDOW));
    results.add(checks.fence(DELIVERIES, receiver));
    results.add(checks.acknowledged(new ArrayList<>(load.acks)));
    results.add(clientAnswers(load));
    results.add(checks.subscribers(subscribers, upTo));
    for (Subscriber s : subscribers) {
      s.stop();
    }
    results.add(replay(checks));

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("requests", load.requests.get());
    figures.put("retries", load.retries.get());
    figures.put("replayedAnswers", load.replayed.get());
    figures.put("acknowledged", load.acks.size());
    figures.put("refused", load.refusals.size());
    figures.put("gaveUp", load.gaveUp.size());
    figures.put("eventsStored", upTo);
    Map<String, Integer> starts = new LinkedHashMap<>();
    instances.forEach(i -> starts.put(i.id, i.starts()));
    figures.put("instanceStarts", starts);
    figures.put("unexpectedExits", unexpectedExits);
    report.put("runId", runId);
    report.put("seconds", seconds);
    report.put("window", Map.of("start", start.toString(), "end", end.toString()));
    report.put("figures", figures);
    report.put("faults", faults);
    report.put("faultPlan", plan.describe().lines().toList());
    Map<String, Object> proxies = new LinkedHashMap<>();
    proxies.put("postgres", pgProxy.stats().toString());
    proxies.put("redis", redisProxy.stats().toString());
    report.put("faultProxies", proxies);
    report.put(
        "checks",
        results.stream()
            .map(
                c -> {
                  Map<String, Object> m = new LinkedHashMap<>();
                  m.put("name", c.name());
                  m.put("passed", c.passed());
                  m.put("figures", c.figures());
                  m.put("violations", c.violations());
                  return m;
                })
            .toList());
    printTable(results, figures);
    return results.stream().allMatch(Checks.Check::passed);
  }

  /** The final answers: every order and receipt acknowledged; refunds may be refused (a rule). */
  private static Checks.Check clientAnswers(Load load) {
    List<String> violations = new ArrayList<>();
    Map<String, Integer> refusedByStatus = new LinkedHashMap<>();
    for (Load.Refusal r : load.refusals) {
      refusedByStatus.merge(r.op() + " " + r.status(), 1, Integer::sum);
      if (!Load.REFUND.equals(r.op())) {
        violations.add(r.op() + " key " + r.key() + ": " + r.status() + " " + r.body());
      }
    }
    load.gaveUp.forEach(g -> violations.add("no final answer within 120 s after the load: " + g));
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("refused", refusedByStatus);
    figures.put("gaveUp", load.gaveUp.size());
    return Checks.Check.of(
        "every order and receipt acknowledged (retries with the key)", figures, violations);
  }

  /** (5) Read tables equal a fresh replay of the store. */
  private Checks.Check replay(Checks checks) throws Exception {
    for (Instance i : instances) {
      i.stop();
    }
    Instance one = instances.get(0);
    // Timers off: nothing new is stored while the tables are compared.
    one.start(false);
    require(one.awaitReady(180_000), "replay instance did not become ready");
    Map<String, String> before = awaitStable(checks, null);
    one.stop();
    checks.keepLiveCopies();
    checks.resetProjections();
    one.start(false);
    require(one.awaitReady(180_000), "replay instance did not become ready");
    Map<String, String> after = awaitStable(checks, before);
    one.stop();
    List<String> violations = new ArrayList<>();
    for (String table : Checks.READ_TABLES) {
      if (!Objects.equals(before.get(table), after.get(table))) {
        violations.add(table + ": live " + before.get(table) + ", replay " + after.get(table));
        violations.addAll(checks.differences(table));
      }
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("live", before);
    figures.put("replay", after);
    return Checks.Check.of("read tables equal a fresh replay", figures, violations);
  }

  /** Polls the read tables until they equal {@code target} or stop changing for 10 s. */
  private static Map<String, String> awaitStable(Checks checks, Map<String, String> target)
      throws Exception {
    Map<String, String> last = checks.readTables();
    long stableSince = System.currentTimeMillis();
    long deadline = System.currentTimeMillis() + 300_000;
    while (System.currentTimeMillis() < deadline) {
      Thread.sleep(2000);
      Map<String, String> now = checks.readTables();
      if (target != null && now.equals(target)) {
        return now;
      }
      if (!now.equals(last)) {
        last = now;
        stableSince = System.currentTimeMillis();
      } else if (System.currentTimeMillis() - stableSince >= 10_000) {
        return now;
      }
    }
    return last;
  }

  private void scheduleFaults(ScheduledExecutorService s) {
    long stopKillsAt = seconds - 15;
    int k = 0;
    for (long at = killEvery; at <= stopKillsAt; at += killEvery) {
      int target = k++;
      s.schedule(() -> guarded(() -> killAndRestart(s, target)), at, TimeUnit.SECONDS);
    }
    s.schedule(() -> guarded(this::restartRedis), seconds * 3 / 10 + 3, TimeUnit.SECONDS);
    s.schedule(() -> guarded(this::receiverDatabaseOutage), seconds * 4 / 10 + 3, TimeUnit.SECONDS);
    s.schedule(() -> guarded(this::crashPostgres), seconds / 2 + 3, TimeUnit.SECONDS);
    s.schedule(() -> guarded(() -> pauseLeaseHolder(s)), seconds * 7 / 10 + 3, TimeUnit.SECONDS);
    s.scheduleWithFixedDelay(() -> guarded(this::revive), 2, 2, TimeUnit.SECONDS);
  }

  /** Plays the fault plan through the proxies; the window ends healed. */
  private void play(FaultPlan plan) {
    fault("fault plan (seed " + faultSeed + ") starts on the PostgreSQL and Redis proxies");
    try {
      boolean healed = plan.play(List.of(pgProxy, redisProxy));
      fault("fault plan over, proxies " + (healed ? "healed" : "NOT healed within 30 s"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void killAndRestart(ScheduledExecutorService s, int n) {
    Instance target = null;
    for (int i = 0; i < instances.size(); i++) {
      Instance candidate = instances.get((n + i) % instances.size());
      if (!candidate.paused() && !candidate.down()) {
        target = candidate;
        break;
      }
    }
    if (target == null) {
      return;
    }
    String what = target.toString();
    target.kill();
    fault("SIGKILL " + what + ", restart in 2 s");
    Instance killed = target;
    s.schedule(
        () ->
            guarded(
                () -> {
                  killed.start(true);
                  fault("restarted " + killed);
                }),
        2,
        TimeUnit.SECONDS);
  }

  private void restartRedis() {
    fault("Redis stopping");
    redis.close();
    sleep(1000);
    redis = EmbeddedRedisServer.start(dataDir, redisPort);
    fault("Redis started again on port " + redisPort);
  }

  /** The receiver's own database refuses connections for 8 s while slotkeeper's stays up. */
  private void receiverDatabaseOutage() {
    try {
      receiver.refuseConnections(true);
      fault("receiver's database refusing connections (its sessions ended) for 8 s");
      sleep(8_000);
    } catch (SQLException e) {
      fault("receiver's database outage not started: " + e.getMessage());
    } finally {
      try {
        receiver.refuseConnections(false);
        fault("receiver's database accepting connections again");
      } catch (SQLException e) {
        fault("receiver's database still refusing connections: " + e.getMessage());
      }
    }
  }

  private void crashPostgres() {
    // A crash, not a clean stop: what was committed without waiting for the WAL flush (keys'
    // claims, projection and publisher batches) may be lost, and nothing acknowledged may be.
    fault("PostgreSQL crashing (pg_ctl stop -m immediate) for 10 s");
    pg.crash();
    sleep(10_000);
    long logBefore = logSize();
    pg = EmbeddedPostgresServer.start(dataDir, pgPort);
    postgresCrash =
        recoveredFromCrash(logBefore) ? "recovered" : "started again without crash recovery";
    fault("PostgreSQL started again on port " + pgPort + ": " + postgresCrash);
  }

  private long logSize() {
    try {
      return Files.size(EmbeddedPostgresServer.logFile(dataDir));
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * Whether what the server logged since {@code offset} (its start after the crash) says it found
   * itself crashed and replayed its WAL.
   */
  private boolean recoveredFromCrash(long offset) {
    try {
      byte[] log = Files.readAllBytes(EmbeddedPostgresServer.logFile(dataDir));
      int from = (int) Math.min(offset, log.length);
      return new String(log, from, log.length - from, StandardCharsets.UTF_8)
          .contains("automatic recovery in progress");
    } catch (IOException e) {
      return false;
    }
  }

  /** SIGSTOP the holder of the chaos job's lease (TTL 3 s) for 8 s, then SIGCONT. */
  private void pauseLeaseHolder(ScheduledExecutorService s) {
    String holder = leaseHolder(JOB);
    Instance target =
        instances.stream()
            .filter(i -> holder != null && holder.equals(i.id) && i.alive())
            .findFirst()
            .orElse(instances.stream().filter(Instance::alive).findFirst().orElseThrow());
    target.pause();
    fault(
        "SIGSTOP "
            + target
            + " (lease holder: "
            + holder
            + "; of "
            + DELIVERIES
            + ": "
            + leaseHolder(DELIVERIES)
            + ") for 8 s");
    s.schedule(
        () ->
            guarded(
                () -> {
                  target.resume();
                  fault("SIGCONT " + target);
                }),
        8,
        TimeUnit.SECONDS);
  }

  private String leaseHolder(String job) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    for (Instance i : instances) {
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(i.base() + "/v1/jobs/" + job))
                    .timeout(Duration.ofSeconds(3))
                    .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          JsonNode holder = new ObjectMapper().readTree(r.body()).findValue("leaseHolder");
          return holder == null || holder.isNull() ? null : holder.asText();
        }
      } catch (IOException e) {
        // next instance
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /** An instance that exited by itself (e.g. PostgreSQL was down at start-up) is started again. */
  private void revive() {
    for (Instance i : instances) {
      if (!i.down() && !i.paused() && !i.alive()) {
        String what = i + " exited with " + i.exitCode();
        unexpectedExits.add(what);
        fault(what + "; starting it again");
        i.start(true);
      }
    }
  }

  private void fault(String what) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("atSeconds", (System.currentTimeMillis() - t0) / 1000.0);
    f.put("what", what);
    faults.add(f);
    say(String.format("t+%6.1fs %s", (System.currentTimeMillis() - t0) / 1000.0, what));
  }

  private void guarded(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      fault("fault action failed: " + e);
    }
  }

  private static String jobsFile(String receiverUrl) {
    return """
        # The chaos run's jobs: a 1-second job whose effect is one reports row per slot, a
        # 1-second schedule that calls the chaos receiver (one effect row per slot there),
        # and the shipped jobs as they are.
        jobs:
          - name: chaos-report
            handler: daily-report
            schedule: { every: PT1S }
            catchUp: { policy: LATEST, window: PT1M }
            overlap: ALLOW
            retry: { maxAttempts: 20, initialBackoff: PT1S, multiplier: 2, maxBackoff: PT5S }
            leaseTtl: PT3S
            params: { period: PT1S }
          - name: %s
            schedule: { every: PT1S }
            catchUp: { policy: LATEST, window: PT1M }
            overlap: ALLOW
            retry: { maxAttempts: 20, initialBackoff: PT1S, multiplier: 2, maxBackoff: PT5S }
            leaseTtl: PT3S
            target:
              url: %s
              body: '{"schedule":"{{schedule}}","slot":"{{slot}}","attempt":{{attempt}}}'
              timeout: %s
              secretRef: %s
        """
            .formatted(DELIVERIES, receiverUrl, TARGET_TIMEOUT, Receiver.SECRET_REF)
        + shippedJobs();
  }

  /** The shipped jobs file without its header and {@code jobs:} line. */
  private static String shippedJobs() {
    try (var in = Chaos.class.getResourceAsStream("/slotkeeper-jobs.yaml")) {
      String text = new String(Objects.requireNonNull(in, "slotkeeper-jobs.yaml").readAllBytes());
      return text.substring(text.indexOf("jobs:") + "jobs:".length());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void printTable(List<Checks.Check> results, Map<String, Object> figures) {
    System.out.println();
    System.out.println("  verdict  check");
    System.out.println("  -------  -----");
    for (Checks.Check c : results) {
      System.out.printf("  %-7s  %s  %s%n", c.passed() ? "PASS" : "FAIL", c.name(), c.figures());
      for (String v : c.violations()) {
        System.out.println("             ! " + v);
      }
    }
    System.out.println("  figures: " + figures);
    System.out.println();
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (Exception e) {
      System.err.println("chaos: " + e.getMessage());
    }
  }

  private static void deleteTree(Path dir) {
    try {
      new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
    } catch (IOException e) {
      System.err.println("chaos: could not delete " + dir);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void say(String line) {
    System.out.println("chaos: " + line);
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }

  private static long longEnv(String name, long fallback) {
    return Long.parseLong(env(name, Long.toString(fallback)));
  }
}
