package io.slotkeeper.bench;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * A load generator. Its closed loop ({@link #run}): {@code clients} concurrent clients, each with
 * exactly one request in flight, for a warm-up and then a measured period. Only calls that start
 * and end inside the measured period count; latencies go to an HdrHistogram (microseconds). Its
 * open loop ({@link #openLoop}): requests at a fixed rate, whatever the answers.
 *
 * <p>The load runs on one Vert.x event loop with one kept-alive connection per client: the load
 * generator shares this machine's two cores with the service and PostgreSQL, so its own CPU per
 * request is taken from every figure (the JDK {@code HttpClient} it replaced cost ~180 µs of CPU
 * per request, this one ~25; pgbench's client is C). Calls outside the measured load use the same
 * client from their own thread and block on the answer ({@code Future.await()}).
 */
final class Load {

  /**
   * One request of client {@code client}, its {@code seq}-th; completes with whether it succeeded.
   */
  @FunctionalInterface
  interface Call {
    Future<Boolean> call(Http http, int client, long seq);
  }

  /** An HTTP answer as the calls read it. */
  record Answer(int status, MultiMap headers, String body) {}

  /**
   * The load's HTTP client: one kept-alive connection per client, every request run on the load's
   * event loop (a caller on another thread hands it over: a response's body must be asked for on
   * the loop that reads it, or it may end unread and its future never complete).
   */
  static final class Http implements AutoCloseable {
    private final HttpClientAgent client;
    private final Context loop;

    private Http(HttpClientAgent client, Context loop) {
      this.client = client;
      this.loop = loop;
    }

    /** A JSON POST with bearer token and Idempotency-Key. */
    Future<Answer> post(String url, String token, String key, String json) {
      return send(
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setAbsoluteURI(url)
              .putHeader("Authorization", "Bearer " + token)
              .putHeader("Content-Type", "application/json")
              .putHeader("Idempotency-Key", key),
          json);
    }

    /**
     * A JSON PUT with bearer token, Idempotency-Key and the version it expects ({@code If-Match}).
     */
    Future<Answer> put(String url, String token, String key, String ifMatch, String json) {
      return send(
          new RequestOptions()
              .setMethod(HttpMethod.PUT)
              .setAbsoluteURI(url)
              .putHeader("Authorization", "Bearer " + token)
              .putHeader("Content-Type", "application/json")
              .putHeader("Idempotency-Key", key)
              .putHeader("If-Match", ifMatch),
          json);
    }

    /** A GET with bearer token. */
    Future<Answer> get(String url, String token) {
      return send(
          new RequestOptions()
              .setMethod(HttpMethod.GET)
              .setAbsoluteURI(url)
              .putHeader("Authorization", "Bearer " + token),
          null);
    }

    private Future<Answer> send(RequestOptions options, String body) {
      if (Vertx.currentContext() == loop) {
        return exchange(options, body);
      }
      Promise<Answer> answer = Promise.promise();
      loop.runOnContext(v -> exchange(options, body).onComplete(answer));
      // A last guard: no call may hang the benchmark.
      return answer.future().timeout(60, TimeUnit.SECONDS);
    }

    private Future<Answer> exchange(RequestOptions options, String body) {
      options.setIdleTimeout(30_000);
      return client
          .request(options)
          .compose(request -> body == null ? request.send() : request.send(body))
          .compose(
              response ->
                  response
                      .body()
                      .map(
                          b ->
                              new Answer(response.statusCode(), response.headers(), b.toString())));
    }

    @Override
    public void close() {
      client.close().await();
    }
  }

  /**
   * The load's one event loop, shared by every period of this JVM (its threads end with the
   * benchmark's {@code System.exit}).
   */
  private static final class Loop {
    static final Vertx VERTX = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  }

  /** A client with up to {@code connections} connections on the load's event loop. */
  static Http http(int connections) {
    return new Http(
        Loop.VERTX.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setConnectTimeout(5_000),
            new PoolOptions().setHttp1MaxSize(connections)),
        Loop.VERTX.getOrCreateContext());
  }

  /** The outcome of one measured period. */
  record Result(long ok, long errors, double seconds, Histogram micros) {
    double perSecond() {
      return ok / seconds;
    }

    double p50Ms() {
      return micros.getTotalCount() == 0 ? Double.NaN : micros.getValueAtPercentile(50) / 1000.0;
    }

    double p99Ms() {
      return micros.getTotalCount() == 0 ? Double.NaN : micros.getValueAtPercentile(99) / 1000.0;
    }

    @Override
    public String toString() {
      return String.format(
          "%.0f/s p50 %.1f ms p99 %.1f ms (%d ok, %d errors)",
          perSecond(), p50Ms(), p99Ms(), ok, errors);
    }
  }

  private Load() {}

  static Result run(int clients, int warmupSeconds, int seconds, Call call) {
    try (Http http = http(clients)) {
      Run run = new Run(clients, warmupSeconds, seconds, call, http);
      for (int i = 0; i < clients; i++) {
        int c = i;
        http.loop.runOnContext(v -> run.next(c, 0));
      }
      return run.await();
    }
  }

  /**
   * An open loop: requests sent at {@code perSecond}, whether or not earlier ones were answered,
   * over up to {@code connections} kept-alive connections (a request finding them all busy waits in
   * the client's queue). Each latency runs from the request's scheduled instant, so a stall is
   * charged to every request it held back (no coordinated omission). The requests scheduled inside
   * the measured period count, each once answered; the result's rate is theirs over the period.
   */
  static Result openLoop(
      double perSecond, int connections, int warmupSeconds, int seconds, Call call) {
    try (Http http = http(connections)) {
      OpenRun run = new OpenRun(perSecond, connections, warmupSeconds, seconds, call, http);
      http.loop.runOnContext(v -> run.start());
      return run.await();
    }
  }

  /**
   * What both kinds of period share: the calls, the counters and the histogram, touched only on the
   * one event loop, and the latch the caller waits on.
   */
  private abstract static class Period {
    final int seconds;
    final Call call;
    final Http http;
    final CountDownLatch finished;
    private final Histogram micros = new Histogram(60_000_000L, 3);
    private long ok;
    private long errors;

    Period(int seconds, Call call, Http http, int latches) {
      this.seconds = seconds;
      this.call = call;
      this.http = http;
      this.finished = new CountDownLatch(latches);
    }

    /** The call's answer; a call that throws answers with a failure. */
    Future<Boolean> invoke(int client, long seq) {
      try {
        return call.call(http, client, seq);
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }

    /** Counts one measured outcome, its latency from {@code since}. */
    void count(AsyncResult<Boolean> outcome, long since, long now) {
      if (outcome.succeeded() && outcome.result()) {
        ok++;
        micros.recordValue(Math.min((now - since) / 1000, 60_000_000L));
      } else {
        errors++;
      }
    }

    Result await() {
      try {
        finished.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return new Result(ok, errors, seconds, micros);
    }
  }

  /** One open-loop period. */
  private static final class OpenRun extends Period {
    private static final long WINDOW_NANOS = 100_000_000L;
    private final double nanosPerRequest;
    private final int connections;
    private final long warmupNanos;
    private long start;
    private long measureFrom;
    private long measureTo;
    private long scheduled;
    private long inFlight;
    private boolean sending = true;
    private long startMillis;
    // the slowest answer of the requests scheduled in each 100 ms of the measured period, to tell
    // stalls (every request of a window slow) from a queue (latency growing with the load)
    private final long[] worstMicrosPerWindow;

    OpenRun(
        double perSecond, int connections, int warmupSeconds, int seconds, Call call, Http http) {
      super(seconds, call, http, 1);
      this.nanosPerRequest = 1e9 / perSecond;
      this.connections = connections;
      this.warmupNanos = warmupSeconds * 1_000_000_000L;
      this.worstMicrosPerWindow = new long[seconds * 10];
    }

    void start() {
      start = System.nanoTime();
      startMillis = System.currentTimeMillis();
      measureFrom = start + warmupNanos;
      measureTo = measureFrom + seconds * 1_000_000_000L;
      // a 1 ms tick sends every request that is due by now, each stamped with its own instant
      Loop.VERTX.setPeriodic(
          1,
          timer -> {
            long now = System.nanoTime();
            while (sending) {
              long due = start + (long) (scheduled * nanosPerRequest);
              if (due >= measureTo) {
                sending = false;
                Loop.VERTX.cancelTimer(timer);
                finishIfIdle();
              } else if (due <= now) {
                send(scheduled++, due);
              } else {
                break;
              }
            }
          });
    }

    private void send(long seq, long due) {
      inFlight++;
      invoke((int) (seq % connections), seq)
          .onComplete(
              outcome -> {
                inFlight--;
                if (due >= measureFrom) {
                  long now = System.nanoTime();
                  count(outcome, due, now);
                  int window = (int) ((due - measureFrom) / WINDOW_NANOS);
                  worstMicrosPerWindow[window] =
                      Math.max(worstMicrosPerWindow[window], (now - due) / 1000);
                }
                finishIfIdle();
              });
    }

    private void finishIfIdle() {
      if (!sending && inFlight == 0) {
        logStalls();
        finished.countDown();
      }
    }

    /** Logs the 100 ms windows with an answer over 50 ms, by wall-clock time (to match logs). */
    private void logStalls() {
      List<String> slow = new ArrayList<>();
      long measuredFromMillis = startMillis + warmupNanos / 1_000_000;
      for (int w = 0; w < worstMicrosPerWindow.length; w++) {
        if (worstMicrosPerWindow[w] > 50_000) {
          slow.add(
              String.format(
                  "%s %d ms",
                  Instant.ofEpochMilli(measuredFromMillis + w * 100L),
                  worstMicrosPerWindow[w] / 1000));
        }
      }
      Bench.log(
          "  open loop: %d of %d 100 ms windows had an answer over 50 ms%s",
          slow.size(),
          worstMicrosPerWindow.length,
          slow.isEmpty()
              ? ""
              : ": " + String.join(", ", slow.subList(0, Math.min(40, slow.size()))));
    }
  }

  /** One closed-loop period's clients. */
  private static final class Run extends Period {
    private final long measureFrom;
    private final long measureTo;

    Run(int clients, int warmupSeconds, int seconds, Call call, Http http) {
      super(seconds, call, http, clients);
      this.measureFrom = System.nanoTime() + warmupSeconds * 1_000_000_000L;
      this.measureTo = measureFrom + seconds * 1_000_000_000L;
    }

    /**
     * Sends client {@code client}'s {@code seq}-th request, or ends the client after the period.
     */
    void next(int client, long seq) {
      long t0 = System.nanoTime();
      if (t0 >= measureTo) {
        finished.countDown();
        return;
      }
      invoke(client, seq)
          .onComplete(
              outcome -> {
                long t1 = System.nanoTime();
                if (t0 >= measureFrom && t1 <= measureTo) {
                  count(outcome, t0, t1);
                }
                // The next request as a new task: an answer that failed at once (a call that
                // threw) must not recurse on this stack until it overflows and leaves the client
                // unfinished.
                http.loop.runOnContext(v -> next(client, seq + 1));
              });
    }
  }
}
