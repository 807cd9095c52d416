package io.slotkeeper.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.slotkeeper.platform.config.PostgresEndpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.HdrHistogram.Histogram;

/**
 * HTTP targets (docs/http-targets.md): schedules whose target is a receiver in this process that
 * answers 200 at once and notes when each delivery arrived. So the figures are the service's: its
 * timers, its slot ledger and its signed delivery, not a receiver's work.
 *
 * <ul>
 *   <li><b>Bursts</b>: for each c of {@code BENCH_DELIVERY_BURSTS} (1, 8, 32), c schedules every
 *       second, all due at the same instants: per instant, the time from the nominal instant to the
 *       c-th delivery; deliveries per second = c ÷ the median of those.
 *   <li><b>Lag</b>: {@code BENCH_DELIVERY_SCHEDULES} one-minute schedules spread over the minute
 *       for whole minutes: nominal instant to arrival at the receiver, p50, p99, max; delivered
 *       against expected, and keys delivered more than once (the receiver always answers 2xx, so
 *       any repeat is a second delivery of a completed slot).
 * </ul>
 */
final class DeliveryBench {

  /** Deliveries of a window's last slots arrive within this after the window's end. */
  private static final Duration GRACE = Duration.ofSeconds(10);

  private final Bench bench;
  private final Figures figures;
  private final BenchSettings.DeliverySettings s;

  DeliveryBench(Bench bench, Figures figures) {
    this.bench = bench;
    this.figures = figures;
    this.s = bench.settings.deliveries();
  }

  static void define(Figures f, BenchSettings settings) {
    BenchSettings.DeliverySettings s = settings.deliveries();
    for (int c : s.bursts()) {
      String burst = c + " due at once, every second, " + s.burstSeconds() + " s";
      f.define("deliveries.rate." + c, "Deliveries per second (" + burst + ")", "/s");
      f.define(
          "deliveries.burst.p50." + c, "Nominal to the last delivery p50 (" + burst + ")", "ms");
      f.define(
          "deliveries.burst.p99." + c, "Nominal to the last delivery p99 (" + burst + ")", "ms");
    }
    String many =
        String.format(
            "%,d one-minute schedules with HTTP targets, %d min", s.schedules(), s.minutes());
    f.define("deliveries.lag.p50", "Delivery lag p50, nominal to receiver (" + many + ")", "ms");
    f.define(
        "deliveries.lag.p99",
        "Delivery lag p99, nominal to receiver (" + many + ")",
        "ms",
        "< 100",
        v -> v < 100);
    f.define("deliveries.lag.max", "Delivery lag max, nominal to receiver (" + many + ")", "ms");
    f.define("deliveries.expected", "Deliveries expected (" + many + ")", "deliveries");
    f.define(
        "deliveries.missing",
        "Slots expected but not delivered (" + many + ")",
        "slots",
        "= 0",
        v -> v == 0);
    f.define(
        "deliveries.repeated",
        "Keys delivered more than once though answered 2xx (" + many + ")",
        "keys",
        "= 0",
        v -> v == 0);
  }

  void run() {
    try (Receiver receiver = Receiver.start()) {
      for (int c : s.bursts()) {
        burst(receiver, c);
      }
      lag(receiver);
    }
  }

  /** c schedules every second, all due at once. */
  private void burst(Receiver receiver, int c) {
    List<String> names = names("burst" + c, c);
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (String name : names) {
      yaml.append(job(name, "{ every: PT1S }", receiver));
    }
    PostgresEndpoint db = bench.freshDatabase("deliveries");
    Path jobs = bench.jobsFile("deliveries-burst-" + c, yaml.toString());
    try (Bench.Service svc =
        bench.startService("deliveries-" + c, db, jobs, true, receiver.allowed())) {
      // Warm up (connections, JIT), then one measured window of whole seconds.
      Bench.sleep(Duration.ofSeconds(s.warmupSeconds()).toMillis());
      Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
      Instant to = from.plusSeconds(s.burstSeconds());
      sleepUntil(to.plus(GRACE));
      Map<Instant, Long> lastArrival = new HashMap<>();
      Map<Instant, Integer> arrived = new HashMap<>();
      String prefix = bench.runId + "-burst" + c + "-";
      for (Receiver.Delivery d : receiver.between(prefix, from, to.minusMillis(1))) {
        lastArrival.merge(d.slot(), d.arrivedMillis(), Math::max);
        arrived.merge(d.slot(), 1, Integer::sum);
      }
      Histogram drain = new Histogram(3);
      int incomplete = 0;
      for (Map.Entry<Instant, Long> e : lastArrival.entrySet()) {
        if (arrived.get(e.getKey()) < c) {
          incomplete++;
          continue;
        }
        drain.recordValue(Math.max(0, e.getValue() - e.getKey().toEpochMilli()));
      }
      long slots = s.burstSeconds();
      if (lastArrival.size() < slots || incomplete > 0) {
        figures.note(
            String.format(
                "deliveries, %d at once: %d of %d instants had all %d deliveries",
                c, lastArrival.size() - incomplete, slots, c));
      }
      if (drain.getTotalCount() > 0) {
        double p50 = drain.getValueAtPercentile(50);
        figures.add("deliveries.burst.p50." + c, p50);
        figures.add("deliveries.burst.p99." + c, drain.getValueAtPercentile(99));
        figures.add("deliveries.rate." + c, c * 1000.0 / Math.max(1, p50));
        Bench.log(
            "  %d at once: nominal to the last delivery p50 %.0f p99 %d ms; %.0f deliveries/s",
            c, p50, drain.getValueAtPercentile(99), c * 1000.0 / Math.max(1, p50));
      }
    }
  }

  /** N one-minute schedules spread over the minute, for whole minutes. */
  private void lag(Receiver receiver) {
    List<String> names = names("lag", s.schedules());
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (int i = 0; i < names.size(); i++) {
      yaml.append(job(names.get(i), "{ cron: \"" + (i % 60) + " * * * * *\" }", receiver));
    }
    PostgresEndpoint db = bench.freshDatabase("deliveries");
    Path jobs = bench.jobsFile("deliveries-lag", yaml.toString());
    try (Bench.Service svc =
        bench.startService("deliveries-lag", db, jobs, true, receiver.allowed())) {
      ScheduleFleetBench.Window w =
          ScheduleFleetBench.Window.startingAfter(Instant.now().plusSeconds(5), s.minutes());
      Bench.log("  window %s – %s", w.from(), w.to());
      sleepUntil(w.to().plus(GRACE));
      String prefix = bench.runId + "-lag-";
      List<Receiver.Delivery> got = receiver.between(prefix, w.from(), w.to().minusMillis(1));
      Histogram lag = new Histogram(3);
      Map<String, Integer> byKey = new HashMap<>();
      for (Receiver.Delivery d : got) {
        lag.recordValue(Math.max(0, d.arrivedMillis() - d.slot().toEpochMilli()));
        byKey.merge(d.key(), 1, Integer::sum);
      }
      long expected = (long) names.size() * w.minutes();
      long repeated = byKey.values().stream().filter(n -> n > 1).count();
      figures.add("deliveries.expected", expected);
      figures.add("deliveries.missing", Math.max(0, expected - byKey.size()));
      figures.add("deliveries.repeated", repeated);
      if (lag.getTotalCount() > 0) {
        figures.add("deliveries.lag.p50", lag.getValueAtPercentile(50));
        figures.add("deliveries.lag.p99", lag.getValueAtPercentile(99));
        figures.add("deliveries.lag.max", lag.getMaxValue());
      }
      Bench.log(
          "  %,d schedules: %d of %d delivered (%d keys twice); lag p50 %d p99 %d max %d ms",
          names.size(),
          byKey.size(),
          expected,
          repeated,
          lag.getValueAtPercentile(50),
          lag.getValueAtPercentile(99),
          lag.getMaxValue());
    }
  }

  private static String job(String name, String schedule, Receiver receiver) {
    return "  - name: "
        + name
        + "\n    schedule: "
        + schedule
        + "\n    target:\n      url: \""
        + receiver.url()
        + "\"\n      body: '{\"schedule\":\"{{schedule}}\",\"slot\":\"{{slot}}\"}'\n";
  }

  private List<String> names(String kind, int count) {
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(bench.jobName(String.format("%s-%05d", kind, i)));
    }
    return out;
  }

  private static void sleepUntil(Instant t) {
    Bench.sleep(Math.max(0, Duration.between(Instant.now(), t).toMillis()));
  }

  /**
   * The receiver: the JDK's HTTP server on loopback, 200 at once, every delivery noted with its
   * arrival.
   */
  static final class Receiver implements AutoCloseable {

    record Delivery(String schedule, Instant slot, String key, long arrivedMillis) {}

    private final HttpServer server;
    private final ExecutorService threads;
    private final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();

    private Receiver(HttpServer server, ExecutorService threads) {
      this.server = server;
      this.threads = threads;
    }

    static Receiver start() {
      try {
        HttpServer server =
            HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        ExecutorService threads = Executors.newFixedThreadPool(64);
        Receiver r = new Receiver(server, threads);
        server.createContext("/deliveries", r::handle);
        server.setExecutor(threads);
        server.start();
        return r;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void handle(HttpExchange ex) throws IOException {
      long arrived = System.currentTimeMillis();
      try (InputStream in = ex.getRequestBody()) {
        in.readAllBytes();
      }
      String schedule = ex.getRequestHeaders().getFirst("Slotkeeper-Schedule");
      String slot = ex.getRequestHeaders().getFirst("Slotkeeper-Slot");
      String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
      if (schedule != null && slot != null && key != null) {
        deliveries.add(new Delivery(schedule, Instant.parse(slot), key, arrived));
      }
      byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }

    String url() {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/deliveries";
    }

    /** The service settings that let it call this receiver (the SSRF guard refuses loopback). */
    Map<String, String> allowed() {
      return Map.of("SLOTKEEPER_HTTP_TARGETS_ALLOW", "127.0.0.1:" + server.getAddress().getPort());
    }

    /** Deliveries of schedules named {@code prefix...} with slots in [from, to]. */
    List<Delivery> between(String prefix, Instant from, Instant to) {
      return deliveries.stream()
          .filter(d -> d.schedule().startsWith(prefix))
          .filter(d -> !d.slot().isBefore(from) && !d.slot().isAfter(to))
          .toList();
    }

    @Override
    public void close() {
      server.stop(0);
      threads.shutdownNow();
    }
  }
}
