package io.slotkeeper.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every duration and size of the benchmark, from environment variables. The defaults are the
 * issue's values; {@code BENCH_QUICK=1} shrinks them so that a whole run takes about two minutes (a
 * smoke check, whose results go to {@code bench/results/tmp/}).
 */
record BenchSettings(
    boolean quick,
    int repeats,
    List<Integer> clients,
    int warmupSeconds,
    int loadSeconds,
    int jitWarmupMaxSeconds,
    double jitQuietShare,
    double openLoopShare,
    int pgbenchClients,
    int pgbenchSeconds,
    String pgbench,
    int timerJobs,
    int timerSeconds,
    int timerWarmupSeconds,
    int catchUpSlots,
    int catchUpTimeoutSeconds,
    int projectionPollMs,
    int streamMaxEvents,
    String serviceHeap,
    Optional<Path> serviceJvmOptionsFile,
    Path serviceJar,
    Path benchJar,
    Path outDir,
    Path logDir,
    Set<String> skip,
    ScheduleSettings schedules,
    DeliverySettings deliveries) {

  /**
   * The many-schedules part ({@link ScheduleFleetBench}): how many one-minute schedules, how long
   * each run lasts, how long a service may take to start them, and the edit load.
   */
  record ScheduleSettings(
      int count,
      int minutes,
      int fleetMinutes,
      int startSeconds,
      int editsPerMinute,
      int edited,
      int leaseTtlSeconds) {}

  /**
   * The HTTP-target part ({@link DeliveryBench}): the burst sizes and how long each runs, and the
   * one-minute schedules of the lag measurement with their window.
   */
  record DeliverySettings(
      List<Integer> bursts, int burstSeconds, int warmupSeconds, int schedules, int minutes) {}

  static BenchSettings fromEnvironment(Map<String, String> env) {
    boolean quick = "1".equals(env.get("BENCH_QUICK")) || "true".equals(env.get("BENCH_QUICK"));
    Env e = new Env(env);
    return new BenchSettings(
        quick,
        e.integer("BENCH_REPEATS", quick ? 1 : 3),
        e.integers("BENCH_CLIENTS", "1,8,32"),
        e.integer("BENCH_WARMUP_SECONDS", quick ? 1 : 5),
        e.integer("BENCH_LOAD_SECONDS", quick ? 2 : 15),
        e.integer("BENCH_JIT_WARMUP_MAX_SECONDS", quick ? 10 : 240),
        e.decimal("BENCH_JIT_QUIET", 0.10),
        e.decimal("BENCH_OPEN_LOOP_SHARE", 0.7),
        e.integer("BENCH_PGBENCH_CLIENTS", 32),
        e.integer("BENCH_PGBENCH_SECONDS", quick ? 3 : 15),
        e.text("BENCH_PGBENCH", defaultPgbench()),
        e.integer("BENCH_TIMER_JOBS", quick ? 50 : 200),
        e.integer("BENCH_TIMER_SECONDS", quick ? 10 : 60),
        e.integer("BENCH_TIMER_WARMUP_SECONDS", quick ? 3 : 10),
        e.integer("BENCH_CATCHUP_SLOTS", quick ? 1_000 : 10_000),
        e.integer("BENCH_CATCHUP_TIMEOUT_SECONDS", quick ? 60 : 300),
        e.integer("BENCH_PROJECTION_POLL_MS", 5),
        e.integer("BENCH_STREAM_MAX_EVENTS", 200_000),
        e.text("BENCH_SERVICE_HEAP", "512m"),
        jvmOptionsFile(e.text("BENCH_SERVICE_JVM_OPTIONS_FILE", DEFAULT_JVM_OPTIONS.toString())),
        Path.of(e.text("BENCH_SERVICE_JAR", "services/app/target/slotkeeper.jar")),
        Path.of(e.text("BENCH_JAR", "bench/target/slotkeeper-bench.jar")),
        Path.of(e.text("BENCH_OUT", quick ? "bench/results/tmp" : "bench/results")),
        Path.of(e.text("BENCH_LOGS", "bench/results/tmp/logs")),
        Arrays.stream(e.text("BENCH_SKIP", "").split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toSet()),
        new ScheduleSettings(
            e.integer("BENCH_SCHEDULES", quick ? 300 : 10_000),
            e.integer("BENCH_SCHEDULES_MINUTES", quick ? 2 : 5),
            e.integer("BENCH_SCHEDULES_FLEET_MINUTES", quick ? 2 : 3),
            e.integer("BENCH_SCHEDULES_START_SECONDS", quick ? 60 : 180),
            e.integer("BENCH_SCHEDULES_EDITS_PER_MINUTE", 1_000),
            e.integer("BENCH_SCHEDULES_EDITED", 100),
            e.integer("BENCH_SCHEDULES_LEASE_TTL_SECONDS", 10)),
        new DeliverySettings(
            e.integers("BENCH_DELIVERY_BURSTS", "1,8,32"),
            e.integer("BENCH_DELIVERY_BURST_SECONDS", quick ? 10 : 30),
            e.integer("BENCH_DELIVERY_WARMUP_SECONDS", quick ? 3 : 10),
            e.integer("BENCH_DELIVERY_SCHEDULES", quick ? 100 : 1_000),
            e.integer("BENCH_DELIVERY_MINUTES", quick ? 1 : 3)));
  }

  /**
   * The settings of this process's environment for a run of {@code tool} (a name for messages);
   * exits with 2 when there is no service jar to run.
   */
  static BenchSettings forRun(String tool) {
    BenchSettings s = fromEnvironment(System.getenv());
    if (!Files.isRegularFile(s.serviceJar())) {
      System.err.println(tool + ": no service jar at " + s.serviceJar() + " (make build first)");
      System.exit(2);
    }
    return s;
  }

  /** The options the service is run with in production (see infra/jvm.options). */
  static final Path DEFAULT_JVM_OPTIONS = Path.of("infra", "jvm.options");

  /** {@code none}: no file; otherwise the file must exist (a typo must not bench other flags). */
  private static Optional<Path> jvmOptionsFile(String value) {
    if (value.equals("none")) {
      return Optional.empty();
    }
    Path file = Path.of(value);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "BENCH_SERVICE_JVM_OPTIONS_FILE: no file "
              + file.toAbsolutePath()
              + " (run from the repository root, or name the file, or none)");
    }
    return Optional.of(file.toAbsolutePath());
  }

  /** The JVM options of the service and baseline processes: the heap, then the options file. */
  List<String> serviceJvmOptions() {
    List<String> options = new ArrayList<>();
    options.add("-Xmx" + serviceHeap);
    serviceJvmOptionsFile.ifPresent(f -> options.add("@" + f));
    return options;
  }

  /** Whether a phase ({@code pgbench, commands, baseline, timers, catchup, schedules}) runs. */
  boolean runs(String phase) {
    return !skip.contains(phase);
  }

  int maxClients() {
    return clients.stream().mapToInt(Integer::intValue).max().orElse(1);
  }

  private static String defaultPgbench() {
    Path debian = Path.of("/usr/lib/postgresql/15/bin/pgbench");
    return debian.toFile().canExecute() ? debian.toString() : "pgbench";
  }

  private record Env(Map<String, String> env) {
    String text(String name, String fallback) {
      String v = env.get(name);
      return v == null || v.isBlank() ? fallback : v.trim();
    }

    /** A comma-separated list of integers. */
    List<Integer> integers(String name, String fallback) {
      return Arrays.stream(text(name, fallback).split(","))
          .map(String::trim)
          .map(Integer::parseInt)
          .toList();
    }

    int integer(String name, int fallback) {
      return parsed(name, fallback, Integer::parseInt, "an integer");
    }

    double decimal(String name, double fallback) {
      return parsed(name, fallback, Double::parseDouble, "a number");
    }

    private <T> T parsed(String name, T fallback, Function<String, T> parse, String expected) {
      String v = text(name, null);
      if (v == null) {
        return fallback;
      }
      try {
        return parse.apply(v);
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException(name + ": expected " + expected + ", got '" + v + "'");
      }
    }
  }
}
