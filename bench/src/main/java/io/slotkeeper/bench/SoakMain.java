package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * {@code make soak}: one instance holds a crowd of idle SSE subscribers and idle HTTP connections
 * while place-order commands arrive at a steady rate from a few clients. It measures the orders'
 * p99 and the PostgreSQL transactions per second of the service's database without the crowd
 * (before it comes and after it left) and with it, prints a verdict table, writes {@code
 * bench/results/soak-<date>.json} and {@code .md}, and exits 1 when a check fails. Settings are
 * {@code SOAK_*} environment variables (docs/guarantees.md), the service's JVM and jar those of
 * {@code make bench} ({@code BENCH_SERVICE_*}).
 */
public final class SoakMain {

  /** The soak's sizes and durations. */
  record Settings(
      int subscribers,
      int idleConnections,
      double rate,
      int clients,
      int warmupSeconds,
      int seconds,
      String filter,
      Path outDir) {

    static Settings fromEnvironment(Map<String, String> env) {
      return new Settings(
          Integer.parseInt(env.getOrDefault("SOAK_SUBSCRIBERS", "1000")),
          Integer.parseInt(env.getOrDefault("SOAK_IDLE_CONNECTIONS", "1000")),
          Double.parseDouble(env.getOrDefault("SOAK_RATE", "100")),
          Integer.parseInt(env.getOrDefault("SOAK_CLIENTS", "4")),
          Integer.parseInt(env.getOrDefault("SOAK_WARMUP_SECONDS", "5")),
          Integer.parseInt(env.getOrDefault("SOAK_SECONDS", "30")),
          env.getOrDefault("SOAK_FILTER", "aggregateType=Inventory"),
          Path.of(env.getOrDefault("SOAK_OUT", "bench/results")));
    }

    String text() {
      return String.format(
          "SOAK_SUBSCRIBERS=%d SOAK_IDLE_CONNECTIONS=%d SOAK_RATE=%.0f SOAK_CLIENTS=%d"
              + " SOAK_WARMUP_SECONDS=%d SOAK_SECONDS=%d SOAK_FILTER=%s",
          subscribers, idleConnections, rate, clients, warmupSeconds, seconds, filter);
    }
  }

  /** What the measured periods of one kind saw together. */
  record Period(
      Histogram micros,
      long ok,
      long errors,
      double seconds,
      double transactions,
      double pages,
      double serviceCpu,
      double postgresCpu) {

    Period plus(Period o) {
      Histogram h = micros.copy();
      h.add(o.micros);
      return new Period(
          h,
          ok + o.ok,
          errors + o.errors,
          seconds + o.seconds,
          transactions + o.transactions,
          pages + o.pages,
          serviceCpu + o.serviceCpu,
          postgresCpu + o.postgresCpu);
    }

    Load.Result orders() {
      return new Load.Result(ok, errors, seconds, micros);
    }
  }

  private SoakMain() {}

  public static void main(String[] args) throws IOException {
    BenchSettings bs = BenchSettings.forRun("soak");
    Settings s = Settings.fromEnvironment(System.getenv());
    Figures f = define(s);
    Instant started = Instant.now();
    try (Bench bench = new Bench(bs)) {
      Bench.log("soak run %s: %s", bench.runId, s.text());
      try {
        run(bench, s, f);
      } catch (RuntimeException e) {
        Bench.log("soak FAILED: %s", e);
        e.printStackTrace();
        f.note("the run failed: " + e.getMessage());
      }
      write(s, bench, f, started);
    }
    boolean measured = !f.values("ratio.p99").isEmpty() && !f.values("ratio.tx").isEmpty();
    System.exit(measured && f.misses().isEmpty() ? 0 : 1);
  }

  private static Figures define(Settings s) {
    String crowd =
        "with " + s.subscribers() + " SSE subscribers + " + s.idleConnections() + " idle sockets";
    String alone = "without them (before and after)";
    Figures f = new Figures();
    f.define(
        "held.subscribers",
        "SSE subscribers open at the end of the crowd period",
        "",
        "= " + s.subscribers(),
        v -> v == s.subscribers());
    f.define(
        "held.idle",
        "Idle connections open at the end of the crowd period",
        "",
        "= " + s.idleConnections(),
        v -> v == s.idleConnections());
    f.define("service.files", "Open files of the service with the crowd", "");
    for (String[] p : List.of(new String[] {"alone", alone}, new String[] {"crowd", crowd})) {
      f.define(
          p[0] + ".rate",
          String.format(
              "Place order, %.0f/s offered by %d clients, %s", s.rate(), s.clients(), p[1]),
          "req/s");
      f.define(p[0] + ".p50", "Place order p50, " + p[1], "ms");
      f.define(p[0] + ".p99", "Place order p99, " + p[1], "ms");
      f.define(p[0] + ".tx", "PostgreSQL transactions (service's database), " + p[1], "tx/s");
      f.define(p[0] + ".pages", "Event pages read, " + p[1], "pages/s");
      f.define(p[0] + ".cpu.service", "Service CPU, " + p[1], "% of a core");
      f.define(p[0] + ".cpu.postgres", "PostgreSQL CPU, " + p[1], "% of a core");
    }
    f.define("ratio.p99", "Place order p99 with the crowd / without", "", "< 2", v -> v < 2);
    f.define(
        "ratio.tx",
        "PostgreSQL transactions per second with the crowd / without",
        "",
        "<= 1.2",
        v -> v <= 1.2);
    f.define(
        "tx.per.subscriber", "Extra PostgreSQL transactions per second per subscriber", "tx/s");
    return f;
  }

  private static void run(Bench bench, Settings s, Figures f) {
    PostgresEndpoint db = bench.freshDatabase("soak");
    // every socket of the crowd and the load, and room for /metrics and the health checks
    int connections = s.subscribers() + s.idleConnections() + s.clients() + 100;
    Map<String, String> limits =
        Map.of(
            "SLOTKEEPER_HTTP_MAX_CONNECTIONS", Integer.toString(connections),
            "SLOTKEEPER_SUBSCRIBERS_PER_TOKEN", Integer.toString(s.subscribers()));
    try (Bench.Service svc = bench.startService("soak", db, bench.noJobs(), false, limits);
        Crowd crowd = new Crowd(svc.baseUrl())) {
      long pid = svc.process().pid();
      WorkMeter meter = new WorkMeter(db, pid);
      JitWarmup.Result warm =
          JitWarmup.run(
              pid,
              s.clients(),
              120,
              bench.settings.jitQuietShare(),
              List.of(CommandBench.uniqueOrders(svc.baseUrl(), bench.runId + "-w", null, null)));
      Bench.log(
          "  warm-up: %.0f s, JIT compiler %.1f s CPU", warm.seconds(), warm.compilerCpuSeconds());
      Period before = period(bench, s, svc, meter, "before");
      Bench.log(
          "  crowd: opening %d SSE subscribers (?%s, after the newest event) and %d idle"
              + " connections",
          s.subscribers(), s.filter(), s.idleConnections());
      // Idle means caught up: they resume after the store's newest event, as a reconnecting
      // EventSource does (from 0, each would first read the whole history on its own).
      long head =
          (long) Bench.row(db, "SELECT coalesce(max(global_index), 0) FROM domain_event_entry")[0];
      crowd.subscribe(s.subscribers(), Bench.CLIENT_TOKEN, s.filter() + "&after=" + head);
      crowd.idleConnections(s.idleConnections());
      Bench.log(
          "  crowd: %d subscribers open (the service counts %.0f), %d idle connections",
          crowd.subscribers(), metric(svc.baseUrl(), "slotkeeper_event_subscribers"), crowd.idle());
      Period with = period(bench, s, svc, meter, "crowd");
      f.add(
          "held.subscribers",
          Math.min(crowd.subscribers(), metric(svc.baseUrl(), "slotkeeper_event_subscribers")));
      f.add("held.idle", crowd.idle());
      f.add("service.files", openFiles(pid));
      Bench.log(
          "  crowd: %d subscribers and %d idle connections still open, %d closed by the service,"
              + " %d bytes received",
          crowd.subscribers(), crowd.idle(), crowd.closedByServer(), crowd.bytesReceived());
      crowd.disperse();
      Bench.log(
          "  crowd gone: the service counts %.0f subscribers",
          metric(svc.baseUrl(), "slotkeeper_event_subscribers"));
      Period after = period(bench, s, svc, meter, "after");
      record(f, "alone", before.plus(after));
      record(f, "crowd", with);
      f.add("ratio.p99", f.median("crowd.p99") / f.median("alone.p99"));
      f.add("ratio.tx", f.median("crowd.tx") / f.median("alone.tx"));
      f.add("tx.per.subscriber", (f.median("crowd.tx") - f.median("alone.tx")) / s.subscribers());
      f.note(
          String.format(
              "without the crowd: p99 %.1f ms and %.0f tx/s before it came, %.1f ms and %.0f tx/s"
                  + " after it left",
              before.orders().p99Ms(),
              before.transactions() / before.seconds(),
              after.orders().p99Ms(),
              after.transactions() / after.seconds()));
    }
  }

  /** One period of the order load, with the database's and the service's counters around it. */
  private static Period period(
      Bench bench, Settings s, Bench.Service svc, WorkMeter meter, String name) {
    WorkMeter.Period counters =
        meter.around(
            s.warmupSeconds(),
            s.seconds(),
            () -> metric(svc.baseUrl(), "slotkeeper_event_pages_total"));
    Load.Result orders =
        Load.openLoop(
            s.rate(),
            s.clients(),
            s.warmupSeconds(),
            s.seconds(),
            CommandBench.uniqueOrders(svc.baseUrl(), bench.runId + "-" + name, null, null));
    WorkMeter.Snapshot used = counters.await();
    Period p =
        new Period(
            orders.micros(),
            orders.ok(),
            orders.errors(),
            s.seconds(),
            used.transactions(),
            counters.counter(),
            used.serviceCpu(),
            used.postgresCpu());
    Bench.log(
        "  %s: orders %s; %.0f tx/s, %.1f pages/s; service %.0f %%, PostgreSQL %.0f %% of a core",
        name,
        orders,
        p.transactions() / p.seconds(),
        p.pages() / p.seconds(),
        100 * p.serviceCpu() / p.seconds(),
        100 * p.postgresCpu() / p.seconds());
    return p;
  }

  private static void record(Figures f, String id, Period p) {
    Load.Result orders = p.orders();
    f.add(id + ".rate", orders.perSecond());
    f.add(id + ".p50", orders.p50Ms());
    f.add(id + ".p99", orders.p99Ms());
    f.add(id + ".tx", p.transactions() / p.seconds());
    f.add(id + ".pages", p.pages() / p.seconds());
    f.add(id + ".cpu.service", 100 * p.serviceCpu() / p.seconds());
    f.add(id + ".cpu.postgres", 100 * p.postgresCpu() / p.seconds());
    if (p.errors() > 0) {
      f.note(id + ": " + p.errors() + " orders failed (not counted in rate or latency)");
    }
  }

  /** The sum of a metric's series on the service's {@code /metrics} (NaN if unreadable). */
  static double metric(String baseUrl, String name) {
    try (Load.Http http = Load.http(1)) {
      String text = http.get(baseUrl + "/metrics", Bench.OPERATOR_TOKEN).await().body();
      return text.lines()
          .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .sum();
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  /** The number of open file descriptors of a process (NaN where /proc does not say). */
  private static double openFiles(long pid) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return fds.count();
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  private static void write(Settings s, Bench bench, Figures f, Instant started)
      throws IOException {
    String date = LocalDate.now(ZoneOffset.UTC).toString();
    JsonObject machine = Machine.describe(bench);
    JsonObject json = f.result(date, bench.runId, started, s.text(), machine);
    StringBuilder md = new StringBuilder();
    md.append("# slotkeeper soak check, ").append(date).append("\n\n");
    md.append(
            String.format(
                "Machine: %d cores, %s, %s, %s. Settings: `%s`.%n%n",
                machine.getInteger("nproc"),
                machine.getString("memory"),
                machine.getString("java"),
                machine.getString("postgres"),
                s.text()))
        .append(f.markdown());
    if (!f.notes().isEmpty()) {
      md.append("\n## Notes\n\n");
      f.notes().forEach(n -> md.append("- ").append(n).append('\n'));
    }
    Files.createDirectories(s.outDir());
    Path jsonFile = s.outDir().resolve("soak-" + date + ".json");
    Path mdFile = s.outDir().resolve("soak-" + date + ".md");
    Files.writeString(jsonFile, json.encodePrettily() + "\n");
    Files.writeString(mdFile, md.toString());
    System.out.println();
    System.out.println(md);
    Bench.log("wrote %s and %s", jsonFile, mdFile);
  }
}
