package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Commands over HTTP: unique orders and stock receipts and replays of applied orders at each client
 * count, the projection lag under the order load, the event stream's delivery rate to one
 * subscriber, and the service's peak RSS. One fresh service and database per repetition.
 */
final class CommandBench {

  private static final Pattern ORDER_ID = Pattern.compile("\"orderId\"\\s*:\\s*\"([^\"]+)\"");
  private static final int MAX_SAVED = 50_000;

  private final Bench bench;
  private final Figures figures;

  CommandBench(Bench bench, Figures figures) {
    this.bench = bench;
    this.figures = figures;
  }

  /** An order applied (or to replay): its key and body. */
  record Placed(String key, String body) {}

  /** The latest order answered during the measured period, for the projection lag sampler. */
  record Answered(String orderId, long nanos) {}

  static String orderBody(int client, long seq) {
    return "{\"customerId\":\"c-"
        + client
        + "\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"SKU-"
        + (seq % 100)
        + "\",\"qty\":1,\"unitPriceCents\":1500}]}";
  }

  /**
   * Unique orders: POST /v1/orders with a fresh key. Applied ones are kept (up to a limit) in
   * {@code saved}, when given, for the replays; when {@code answered} is given, each answer is
   * offered to the projection sampler.
   */
  static Load.Call uniqueOrders(
      String baseUrl, String keyPrefix, List<Placed> saved, AtomicReference<Answered> answered) {
    return (http, client, seq) -> {
      String key = keyPrefix + "-" + client + "-" + seq;
      String body = orderBody(client, seq);
      return http.post(baseUrl + "/v1/orders", Bench.CLIENT_TOKEN, key, body)
          .map(
              r -> {
                if (r.status() != 201) {
                  return false;
                }
                if (saved != null && saved.size() < MAX_SAVED) {
                  saved.add(new Placed(key, body));
                }
                if (answered != null) {
                  Matcher m = ORDER_ID.matcher(r.body());
                  if (m.find()) {
                    answered.set(new Answered(m.group(1), System.nanoTime()));
                  }
                }
                return true;
              });
    };
  }

  /** Replays: the same key and body as an applied order; success is a replayed 201. */
  static Load.Call replays(String baseUrl, List<Placed> saved) {
    return (http, client, seq) -> {
      Placed p = saved.get((int) ((client * 7919L + seq) % saved.size()));
      return http.post(baseUrl + "/v1/orders", Bench.CLIENT_TOKEN, p.key(), p.body())
          .map(r -> r.status() == 201 && "true".equals(r.headers().get("Idempotent-Replayed")));
    };
  }

  /** Stock receipts: POST /v1/inventory/{sku}/receipts with a fresh key, 100 SKUs per client. */
  static Load.Call receipts(String baseUrl, String keyPrefix) {
    return (http, client, seq) ->
        http.post(
                baseUrl + "/v1/inventory/R-" + client + "-" + (seq % 100) + "/receipts",
                Bench.CLIENT_TOKEN,
                keyPrefix + "-" + client + "-" + seq,
                "{\"qty\":5}")
            .map(r -> r.status() / 100 == 2);
  }

  /** Declares the throughput and latency figures of one kind of request at each client count. */
  static void defineLoadFigures(
      Figures figures, BenchSettings s, String id, String label, boolean targets) {
    for (int c : s.clients()) {
      String at = label + ", " + c + (c == 1 ? " client" : " clients");
      figures.define(id + ".c" + c + ".rate", at, "req/s");
      figures.define(id + ".c" + c + ".p50", at + ", p50", "ms");
      if (targets && c == 32) {
        figures.define(id + ".c" + c + ".p99", at + ", p99", "ms", "< 50", v -> v < 50);
      } else {
        figures.define(id + ".c" + c + ".p99", at + ", p99", "ms");
      }
    }
  }

  static void record(Figures figures, String id, int clients, Load.Result r) {
    figures.add(id + ".c" + clients + ".rate", r.perSecond());
    figures.add(id + ".c" + clients + ".p50", r.p50Ms());
    figures.add(id + ".c" + clients + ".p99", r.p99Ms());
    if (r.errors() > 0) {
      figures.note(
          String.format(
              "%s at %d clients: %d failed requests (not counted in rate or latency)",
              id, clients, r.errors()));
    }
  }

  static void define(Figures figures, BenchSettings s) {
    JitWarmup.define(figures, "warmup.service", "a fresh service");
    defineLoadFigures(figures, s, "orders", "Unique commands: place order", true);
    defineLoadFigures(figures, s, "receipts", "Unique commands: receive stock", true);
    defineLoadFigures(figures, s, "replays", "Replays of applied orders", false);
    String open =
        String.format(
            "Place order, open loop at %.0f%% of the %d-client rate",
            s.openLoopShare() * 100, s.maxClients());
    figures.define("orders.open.rate", open + " (offered)", "req/s");
    figures.define("orders.open.p50", open + ", p50", "ms");
    figures.define("orders.open.p99", open + ", p99", "ms");
    figures.define("projection.p50", "Projection lag (orders, under load), p50", "ms");
    figures.define(
        "projection.p99", "Projection lag (orders, under load), p99", "ms", "< 500", v -> v < 500);
    String max = s.maxClients() + " clients";
    WorkMeter.define(figures, "cost.orders", "Place order, " + max);
    WorkMeter.define(figures, "cost.receipts", "Receive stock, " + max);
    WorkMeter.define(figures, "cost.replays", "Replays, " + max);
    figures.define("stream.rate", "Event stream delivery to one SSE subscriber", "events/s");
    figures.define(
        "rss.commands", "Peak RSS of the service under command load", "MiB", "< 768", v -> v < 768);
  }

  void run(int rep) {
    BenchSettings s = bench.settings;
    PostgresEndpoint db = bench.freshDatabase("commands");
    try (Bench.Service svc = bench.startService("commands-r" + rep, db, bench.noJobs(), false)) {
      WorkMeter meter = new WorkMeter(db, svc.process().pid());
      List<Placed> warmed = Collections.synchronizedList(new ArrayList<>());
      String warm = bench.runId + "-r" + rep + "-w";
      // The warm-up runs what the measured periods run, the projection-lag sampler's reads too:
      // without them the read path was compiled during the measured place-order period (the JIT
      // compiler then used 66 µs of CPU per order there, against 4 µs per receipt).
      AtomicReference<Answered> warmAnswered = new AtomicReference<>();
      ProjectionSampler warmSampler =
          ProjectionSampler.start(svc.baseUrl(), warmAnswered, s.projectionPollMs());
      try {
        JitWarmup.warmUp(
            figures,
            s,
            "warmup.service",
            svc.process().pid(),
            List.of(
                uniqueOrders(svc.baseUrl(), warm + "o", warmed, warmAnswered),
                receipts(svc.baseUrl(), warm + "s"),
                replays(svc.baseUrl(), warmed)));
      } finally {
        warmSampler.stop();
      }
      List<Placed> saved = Collections.synchronizedList(new ArrayList<>());
      double closedRate = 0;
      for (int c : s.clients()) {
        AtomicReference<Answered> answered = new AtomicReference<>();
        ProjectionSampler sampler = null;
        if (c == s.maxClients()) {
          sampler = ProjectionSampler.start(svc.baseUrl(), answered, s.projectionPollMs());
        }
        String prefix = bench.runId + "-r" + rep + "-o" + c;
        WorkMeter.Period ordersCost =
            c == s.maxClients() ? meter.around(s.warmupSeconds(), s.loadSeconds()) : null;
        Load.Result orders =
            Load.run(
                c,
                s.warmupSeconds(),
                s.loadSeconds(),
                uniqueOrders(svc.baseUrl(), prefix, saved, sampler == null ? null : answered));
        if (sampler != null) {
          sampler.stop();
          Histogram lag = sampler.lagMs;
          figures.add("projection.p50", lag.getValueAtPercentile(50));
          figures.add("projection.p99", lag.getValueAtPercentile(99));
          Bench.log(
              "  projection lag: p50 %d ms, p99 %d ms, max %d ms (%d samples)",
              lag.getValueAtPercentile(50),
              lag.getValueAtPercentile(99),
              lag.getMaxValue(),
              lag.getTotalCount());
        }
        record(figures, "orders", c, orders);
        Bench.log("  orders   c=%d: %s", c, orders);
        if (c == s.maxClients()) {
          closedRate = orders.perSecond();
        }
        if (ordersCost != null) {
          WorkMeter.record(figures, "cost.orders", ordersCost.await(), orders.ok());
        }

        String rPrefix = bench.runId + "-r" + rep + "-s" + c;
        WorkMeter.Period receiptsCost =
            c == s.maxClients() ? meter.around(s.warmupSeconds(), s.loadSeconds()) : null;
        Load.Result receipts =
            Load.run(c, s.warmupSeconds(), s.loadSeconds(), receipts(svc.baseUrl(), rPrefix));
        record(figures, "receipts", c, receipts);
        Bench.log("  receipts c=%d: %s", c, receipts);
        if (receiptsCost != null) {
          WorkMeter.record(figures, "cost.receipts", receiptsCost.await(), receipts.ok());
        }

        WorkMeter.Period replaysCost =
            c == s.maxClients() ? meter.around(s.warmupSeconds(), s.loadSeconds()) : null;
        Load.Result replayed =
            Load.run(c, s.warmupSeconds(), s.loadSeconds(), replays(svc.baseUrl(), saved));
        record(figures, "replays", c, replayed);
        Bench.log("  replays  c=%d: %s", c, replayed);
        if (replaysCost != null) {
          WorkMeter.record(figures, "cost.replays", replaysCost.await(), replayed.ok());
        }
      }
      if (s.openLoopShare() > 0 && closedRate > 0) {
        openLoop(s, closedRate * s.openLoopShare(), svc.baseUrl(), bench.runId + "-r" + rep);
      }
      double rate = streamRate(svc.baseUrl(), db, s.streamMaxEvents());
      figures.add("stream.rate", rate);
      figures.add("rss.commands", svc.process().peakRssMiB());
      Bench.log("  stream: %.0f events/s; peak RSS %.0f MiB", rate, svc.process().peakRssMiB());
    }
  }

  /**
   * Place order at a fixed arrival rate below the closed loop's: latency as callers see it at a
   * given load, which a saturated closed loop cannot show (there the median is the client count
   * over the throughput).
   */
  private void openLoop(BenchSettings s, double perSecond, String baseUrl, String prefix) {
    Load.Result r =
        Load.openLoop(
            perSecond,
            2 * s.maxClients(),
            s.warmupSeconds(),
            s.loadSeconds(),
            uniqueOrders(baseUrl, prefix + "-open", null, null));
    figures.add("orders.open.rate", perSecond);
    figures.add("orders.open.p50", r.p50Ms());
    figures.add("orders.open.p99", r.p99Ms());
    Bench.log("  orders open loop at %.0f/s: %s", perSecond, r);
    if (r.errors() > 0) {
      figures.note(String.format("open loop: %d failed requests", r.errors()));
    }
  }

  static void join(Thread t) {
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Takes the latest answered order, polls GET /v1/orders/{id} until the read model has it, and
   * records the time from the command's answer to the first read that shows it; then the next.
   */
  static final class ProjectionSampler implements Runnable {
    final Histogram lagMs = new Histogram(600_000L, 3);
    private final String baseUrl;
    private final AtomicReference<Answered> answered;
    private final int pollMs;
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread thread;

    private ProjectionSampler(String baseUrl, AtomicReference<Answered> answered, int pollMs) {
      this.baseUrl = baseUrl;
      this.answered = answered;
      this.pollMs = pollMs;
    }

    /** A sampler of the orders offered to {@code answered}, on a thread of its own. */
    static ProjectionSampler start(String baseUrl, AtomicReference<Answered> answered, int pollMs) {
      ProjectionSampler sampler = new ProjectionSampler(baseUrl, answered, pollMs);
      sampler.thread = new Thread(sampler, "projection-sampler");
      sampler.thread.start();
      return sampler;
    }

    /** Stops sampling and waits for the thread; {@link #lagMs} is final afterwards. */
    void stop() {
      stop.set(true);
      join(thread);
    }

    @Override
    public void run() {
      try (Load.Http http = Load.http(1)) {
        while (!stop.get()) {
          Answered a = answered.getAndSet(null);
          if (a == null) {
            Bench.sleep(1);
            continue;
          }
          try {
            while (!stop.get()) {
              if (http.get(baseUrl + "/v1/orders/" + a.orderId(), Bench.CLIENT_TOKEN)
                      .await()
                      .status()
                  == 200) {
                lagMs.recordValue(Math.min((System.nanoTime() - a.nanos()) / 1_000_000, 600_000));
                break;
              }
              Bench.sleep(pollMs);
            }
          } catch (Exception e) {
            Bench.sleep(pollMs);
          }
        }
      }
    }
  }

  /**
   * One SSE subscriber from the stream's start (or the last {@code maxEvents} events): events per
   * second until it has seen the store's head.
   */
  static double streamRate(String baseUrl, PostgresEndpoint db, int maxEvents) {
    double[] head = Bench.row(db, "SELECT max(global_index), count(*) FROM domain_event_entry");
    if (Double.isNaN(head[0])) {
      return Double.NaN;
    }
    long last = (long) head[0];
    long from = Math.max(0, last - maxEvents);
    long count = 0;
    long t0 = System.nanoTime();
    try {
      // The JDK client here: the SSE body is read as a plain line stream.
      HttpResponse<InputStream> r =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(baseUrl + "/v1/events/stream"))
                      .header("Authorization", "Bearer " + Bench.CLIENT_TOKEN)
                      .header("Last-Event-ID", Long.toString(from))
                      .header("Accept", "text/event-stream")
                      .build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      InputStream body = r.body();
      Thread watchdog =
          new Thread(
              () -> {
                try {
                  Thread.sleep(Duration.ofMinutes(2).toMillis());
                  body.close();
                } catch (Exception e) {
                  // done or interrupted
                }
              });
      watchdog.setDaemon(true);
      watchdog.start();
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("id:")) {
            count++;
            if (Long.parseLong(line.substring(3).trim()) >= last) {
              break;
            }
          }
        }
      }
      watchdog.interrupt();
    } catch (Exception e) {
      Bench.log("  stream: %s after %d events", e, count);
    }
    return count / ((System.nanoTime() - t0) / 1e9);
  }
}
