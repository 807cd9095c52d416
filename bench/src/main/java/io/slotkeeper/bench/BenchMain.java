package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code make bench}: runs every phase of the benchmark on this machine and writes {@code
 * <out>/<yyyy-mm-dd>.json} and {@code .md} (see docs/benchmarks.md for the figures and settings).
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws IOException {
    BenchSettings s = BenchSettings.forRun("bench");
    Figures figures = define(s);
    Instant started = Instant.now();
    int failures = 0;
    try (Bench bench = new Bench(s)) {
      Bench.log("bench run %s%s, output %s", bench.runId, s.quick() ? " (QUICK)" : "", s.outDir());
      // The ceiling, the service and the baseline take turns within each repetition, so that each
      // ratio pairs figures measured minutes apart: this machine's speed drifts by a third within
      // half an hour (pgbench 2,254 tx/s before the commands phase, the baseline 2,842/s after it).
      CommandBench commands = new CommandBench(bench, figures);
      for (int rep = 1; rep <= s.repeats(); rep++) {
        int r = rep;
        failures += phase("pgbench", s, figures, () -> pgbench(bench, figures));
        failures += phase("commands", s, figures, () -> commands.run(r));
        failures += phase("baseline", s, figures, () -> baseline(bench, figures, r));
      }
      TimerBench timers = new TimerBench(bench, figures);
      failures += phase("timers", s, figures, timers::precision);
      failures +=
          phase(
              "catchup",
              s,
              figures,
              () -> {
                for (int rep = 1; rep <= s.repeats(); rep++) {
                  timers.catchUp(rep);
                }
              });
      ScheduleFleetBench schedules = new ScheduleFleetBench(bench, figures);
      failures += phase("schedules", s, figures, schedules::run);
      failures += phase("deliveries", s, figures, new DeliveryBench(bench, figures)::run);
      ratios(s, figures);
      write(
          s,
          bench,
          figures,
          started,
          "",
          "slotkeeper benchmark",
          "Each figure is the median of "
              + s.repeats()
              + " repetitions (min and max beside it); each ratio is taken within one repetition"
              + " (its phases run back to back), then the median of those; the many-schedules"
              + " figures are measured once.",
          settingsText(s),
          true);
    }
    System.exit(failures == 0 ? 0 : 1);
  }

  private static Figures define(BenchSettings s) {
    Figures f = new Figures();
    f.define(
        "pgbench.tps",
        "Ceiling: pgbench, dedup row + event row, " + s.pgbenchClients() + " clients",
        "tx/s");
    WorkMeter.defineMachine(f, "pgbench", "Ceiling: pgbench", "transaction");
    CommandBench.define(f, s);
    int max = s.maxClients();
    f.define(
        "ratio.orders",
        "Place order at " + max + " clients / pgbench ceiling",
        "",
        ">= 0.5",
        v -> v >= 0.5);
    f.define(
        "ratio.receipts",
        "Receive stock at " + max + " clients / pgbench ceiling",
        "",
        ">= 0.5",
        v -> v >= 0.5);
    f.define(
        "ratio.cost.orders",
        "Place order at " + max + " clients: machine CPU per command / pgbench's per transaction",
        "");
    f.define(
        "ratio.cost.receipts",
        "Receive stock at " + max + " clients: machine CPU per command / pgbench's per transaction",
        "");
    f.define(
        "ratio.replays", "Replays / unique orders at " + max + " clients", "", ">= 2", v -> v >= 2);
    CommandBench.defineLoadFigures(f, s, "baseline", "Baseline (check-then-insert): order", false);
    CommandBench.defineLoadFigures(f, s, "baseline.replays", "Baseline: replays", false);
    f.define("ratio.baseline", "Place order / baseline order at " + max + " clients", "");
    WorkMeter.define(f, "cost.baseline", "Baseline order, " + max + " clients");
    JitWarmup.define(f, "warmup.baseline", "the baseline server");
    TimerBench.define(f, s);
    ScheduleFleetBench.define(f, s);
    DeliveryBench.define(f, s);
    return f;
  }

  static int phase(String name, BenchSettings s, Figures figures, Runnable body) {
    if (!s.runs(name)) {
      Bench.log("phase %s: skipped (BENCH_SKIP)", name);
      return 0;
    }
    Bench.log("phase %s", name);
    try {
      body.run();
      return 0;
    } catch (RuntimeException e) {
      Bench.log("phase %s FAILED: %s", name, e);
      e.printStackTrace();
      figures.note("phase " + name + " failed: " + e.getMessage());
      return 1;
    }
  }

  /** One repetition of the ceiling, on fresh tables like the service's fresh database. */
  private static void pgbench(Bench bench, Figures figures) {
    BenchSettings s = bench.settings;
    PostgresEndpoint db = bench.freshDatabase("pgbench");
    Pgbench.createTables(db);
    WorkMeter.Snapshot before = WorkMeter.machineSnapshot();
    Pgbench.Result run = Pgbench.run(bench, db, s.pgbenchClients(), s.pgbenchSeconds());
    WorkMeter.Snapshot used = WorkMeter.machineSnapshot().minus(before);
    figures.add("pgbench.tps", run.tps());
    // Over the process's life, its connections included (54-90 ms of a 15 s run on 2026-12-03).
    WorkMeter.recordMachine(figures, "pgbench", used, run.transactions());
    Bench.log(
        "  pgbench: %.0f tps; machine CPU %.0f µs per transaction, %.0f %% busy",
        run.tps(), used.machineMicrosPer(run.transactions()), used.busyPercent());
  }

  private static void baseline(Bench bench, Figures figures, int rep) {
    BenchSettings s = bench.settings;
    PostgresEndpoint db = bench.freshDatabase("baseline");
    int port = ChildProcess.freePort();
    String base = "http://127.0.0.1:" + port;
    try (ChildProcess server =
        ChildProcess.start(
                "baseline",
                s.serviceJvmOptions(),
                List.of("-cp", s.benchJar().toString(), BaselineServer.class.getName()),
                Map.of(
                    "BASELINE_PG_URL", Bench.url(db),
                    "BASELINE_PORT", Integer.toString(port),
                    "BASELINE_TOKEN", Bench.CLIENT_TOKEN),
                bench.logs.resolve("baseline-r" + rep + ".log"))
            .awaitReady(base + "/health/ready", java.time.Duration.ofMinutes(1))) {
      List<CommandBench.Placed> warmed = java.util.Collections.synchronizedList(new ArrayList<>());
      JitWarmup.warmUp(
          figures,
          s,
          "warmup.baseline",
          server.pid(),
          List.of(
              CommandBench.uniqueOrders(base, bench.runId + "-r" + rep + "-bw", warmed, null),
              CommandBench.replays(base, warmed)));
      List<CommandBench.Placed> saved = java.util.Collections.synchronizedList(new ArrayList<>());
      WorkMeter meter = new WorkMeter(db, server.pid());
      for (int c : s.clients()) {
        WorkMeter.Period cost =
            c == s.maxClients() ? meter.around(s.warmupSeconds(), s.loadSeconds()) : null;
        Load.Result orders =
            Load.run(
                c,
                s.warmupSeconds(),
                s.loadSeconds(),
                CommandBench.uniqueOrders(base, bench.runId + "-r" + rep + "-b" + c, saved, null));
        CommandBench.record(figures, "baseline", c, orders);
        Bench.log("  baseline orders  c=%d: %s", c, orders);
        if (cost != null) {
          WorkMeter.record(figures, "cost.baseline", cost.await(), orders.ok());
        }
        Load.Result replays =
            Load.run(c, s.warmupSeconds(), s.loadSeconds(), CommandBench.replays(base, saved));
        CommandBench.record(figures, "baseline.replays", c, replays);
        Bench.log("  baseline replays c=%d: %s", c, replays);
      }
    }
  }

  /**
   * Ratios of figures of the same repetition (the phases take turns in each), then their median;
   * where a phase failed in some repetition and the lists do not pair, the ratio of the medians.
   */
  private static void ratios(BenchSettings s, Figures f) {
    int max = s.maxClients();
    String orders = "orders.c" + max + ".rate";
    ratio(f, "ratio.orders", orders, "pgbench.tps");
    ratio(f, "ratio.receipts", "receipts.c" + max + ".rate", "pgbench.tps");
    ratio(f, "ratio.cost.orders", "cost.orders.cpu.machine", "pgbench.cpu.machine");
    ratio(f, "ratio.cost.receipts", "cost.receipts.cpu.machine", "pgbench.cpu.machine");
    ratio(f, "ratio.replays", "replays.c" + max + ".rate", orders);
    ratio(f, "ratio.baseline", orders, "baseline.c" + max + ".rate");
  }

  /** A ratio, when both sides were measured (a skipped phase leaves it "not measured"). */
  static void ratio(Figures f, String id, String numeratorId, String denominatorId) {
    List<Double> n = f.values(numeratorId);
    List<Double> d = f.values(denominatorId);
    if (n.isEmpty() || d.isEmpty()) {
      return;
    }
    if (n.size() == d.size()) {
      for (int i = 0; i < n.size(); i++) {
        f.add(id, n.get(i) / d.get(i));
      }
    } else {
      f.add(id, Figures.median(n) / Figures.median(d));
      f.note(id + ": a phase failed in some repetition; the ratio is of the medians, not paired");
    }
  }

  /**
   * Writes {@code <out>/<stem><date>.json} and {@code .md} (and the throughput chart's {@code .png}
   * when {@code chart}), and prints the table.
   */
  static void write(
      BenchSettings s,
      Bench bench,
      Figures figures,
      Instant started,
      String stem,
      String title,
      String method,
      String settings,
      boolean chart)
      throws IOException {
    for (Figures.Spec miss : figures.misses()) {
      figures.note("misses its target: " + miss.label() + " (" + miss.target() + ")");
    }
    if (!figures.misses().isEmpty()) {
      figures.note(
          "why each figure above falls short: to be written before publishing, from the logs in "
              + bench.logs
              + " and the figures (CPU shared by the load generator, the service and PostgreSQL?)");
    }
    Files.createDirectories(s.outDir());
    String date = LocalDate.now(ZoneOffset.UTC).toString();
    JsonObject machine = Machine.describe(bench);
    JsonObject json =
        figures.result(date, bench.runId, started, settings, machine).put("quick", s.quick());
    Path jsonFile = s.outDir().resolve(stem + date + ".json");
    Path mdFile = s.outDir().resolve(stem + date + ".md");
    Files.writeString(jsonFile, json.encodePrettily() + "\n");
    StringBuilder md = new StringBuilder();
    md.append("# ")
        .append(title)
        .append(", ")
        .append(date)
        .append(s.quick() ? " (QUICK smoke run: not a result)" : "")
        .append("\n\n");
    md.append("Machine: ")
        .append(machine.getInteger("nproc"))
        .append(" cores, ")
        .append(machine.getString("memory"))
        .append(", ")
        .append(machine.getString("java"))
        .append(", ")
        .append(machine.getString("postgres"))
        .append(".\n\n");
    md.append(method).append(" Settings: `").append(settings).append("`.\n\n");
    md.append(figures.markdown());
    if (!figures.notes().isEmpty()) {
      md.append("\n## Notes\n\n");
      figures.notes().forEach(n -> md.append("- ").append(n).append('\n'));
    }
    if (chart) {
      Path pngFile = s.outDir().resolve(stem + date + ".png");
      try {
        Chart.throughput(figures, s.clients(), pngFile);
        md.append("\n![throughput](").append(pngFile.getFileName()).append(")\n");
      } catch (IOException | RuntimeException | Error e) {
        Bench.log("no chart: %s", e);
      }
    }
    Files.writeString(mdFile, md.toString());
    Bench.log("wrote %s and %s", jsonFile, mdFile);
    System.out.println();
    System.out.println(md);
  }

  static String settingsText(BenchSettings s) {
    return "BENCH_REPEATS="
        + s.repeats()
        + " BENCH_CLIENTS="
        + String.join(",", s.clients().stream().map(String::valueOf).toList())
        + " BENCH_WARMUP_SECONDS="
        + s.warmupSeconds()
        + " BENCH_LOAD_SECONDS="
        + s.loadSeconds()
        + " BENCH_JIT_WARMUP_MAX_SECONDS="
        + s.jitWarmupMaxSeconds()
        + " BENCH_JIT_QUIET="
        + s.jitQuietShare()
        + " BENCH_OPEN_LOOP_SHARE="
        + s.openLoopShare()
        + " BENCH_PGBENCH_CLIENTS="
        + s.pgbenchClients()
        + " BENCH_PGBENCH_SECONDS="
        + s.pgbenchSeconds()
        + " BENCH_TIMER_JOBS="
        + s.timerJobs()
        + " BENCH_TIMER_SECONDS="
        + s.timerSeconds()
        + " BENCH_CATCHUP_SLOTS="
        + s.catchUpSlots()
        + " "
        + scheduleSettingsText(s)
        + " "
        + deliverySettingsText(s)
        + " "
        + serviceSettingsText(s);
  }

  /** The settings of the HTTP-target part. */
  static String deliverySettingsText(BenchSettings s) {
    BenchSettings.DeliverySettings d = s.deliveries();
    return "BENCH_DELIVERY_BURSTS="
        + String.join(",", d.bursts().stream().map(String::valueOf).toList())
        + " BENCH_DELIVERY_BURST_SECONDS="
        + d.burstSeconds()
        + " BENCH_DELIVERY_WARMUP_SECONDS="
        + d.warmupSeconds()
        + " BENCH_DELIVERY_SCHEDULES="
        + d.schedules()
        + " BENCH_DELIVERY_MINUTES="
        + d.minutes();
  }

  /** The settings of the many-schedules part. */
  static String scheduleSettingsText(BenchSettings s) {
    return "BENCH_SCHEDULES="
        + s.schedules().count()
        + " BENCH_SCHEDULES_MINUTES="
        + s.schedules().minutes()
        + " BENCH_SCHEDULES_FLEET_MINUTES="
        + s.schedules().fleetMinutes()
        + " BENCH_SCHEDULES_START_SECONDS="
        + s.schedules().startSeconds()
        + " BENCH_SCHEDULES_EDITS_PER_MINUTE="
        + s.schedules().editsPerMinute()
        + " BENCH_SCHEDULES_EDITED="
        + s.schedules().edited()
        + " BENCH_SCHEDULES_LEASE_TTL_SECONDS="
        + s.schedules().leaseTtlSeconds();
  }

  /** The service's JVM settings, as every result lists them. */
  static String serviceSettingsText(BenchSettings s) {
    return "BENCH_SERVICE_HEAP="
        + s.serviceHeap()
        + " BENCH_SERVICE_JVM_OPTIONS_FILE="
        + s.serviceJvmOptionsFile().map(BenchMain::optionsText).orElse("none");
  }

  /** The file and the options in it, so a result says which flags the service ran with. */
  private static String optionsText(Path file) {
    try {
      List<String> options =
          Files.readAllLines(file).stream()
              .map(String::trim)
              .filter(l -> !l.isEmpty() && !l.startsWith("#"))
              .toList();
      return file.getFileName() + " (" + String.join(" ", options) + ")";
    } catch (IOException e) {
      return file + " (unreadable: " + e.getMessage() + ")";
    }
  }
}
