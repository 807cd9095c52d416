package io.slotkeeper.bench;

import io.vertx.core.Future;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Schedule edits through the HTTP Schedule API while the timers run: each edit reads the schedule
 * ({@code GET /v1/schedules/{name}}, for its {@code ETag}) and writes the same definition with one
 * param changed ({@code PUT} with {@code If-Match} and a fresh {@code Idempotency-Key}), operator
 * token. The edited schedules are created through the API first: schedules of the jobs file are
 * managed by the file, and the API refuses to edit them.
 *
 * <p>Edits are sent at a fixed rate whatever the answers (at most {@link #MAX_IN_FLIGHT} at once:
 * one falling due beyond that is counted as behind, not sent), over the load's HTTP client.
 */
final class ScheduleEdits implements AutoCloseable {

  static final int MAX_IN_FLIGHT = 32;

  /** What the edits did: answered edits, failures (with the first one's answer), latencies. */
  record Result(long ok, long failed, long behind, String firstFailure, Histogram putMicros) {
    double p99Ms() {
      return putMicros.getTotalCount() == 0
          ? Double.NaN
          : putMicros.getValueAtPercentile(99) / 1000.0;
    }
  }

  private final String baseUrl;
  private final String keyPrefix;
  private final List<String> names;
  private final Load.Http http = Load.http(MAX_IN_FLIGHT * 2);
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "schedule-edits");
            t.setDaemon(true);
            return t;
          });
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong seq = new AtomicLong();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong behind = new AtomicLong();
  private final AtomicReference<String> firstFailure = new AtomicReference<>();
  private final Histogram putMicros = new Histogram(60_000_000L, 3);

  private ScheduleEdits(String baseUrl, String keyPrefix, List<String> names) {
    this.baseUrl = baseUrl;
    this.keyPrefix = keyPrefix;
    this.names = names;
  }

  /**
   * Why the service cannot take schedule edits, or {@code null} when it can: {@code GET
   * /v1/schedules?limit=1} answering 404 means the service has no Schedule API.
   */
  static String unavailable(String baseUrl) {
    try (Load.Http http = Load.http(1)) {
      Load.Answer a = http.get(baseUrl + "/v1/schedules?limit=1", Bench.OPERATOR_TOKEN).await();
      if (a.status() == 404) {
        return "no /v1/schedules on this service";
      }
      return a.status() / 100 == 2
          ? null
          : "GET /v1/schedules?limit=1 answered " + a.status() + ": " + a.body();
    }
  }

  /**
   * Creates the schedules to edit ({@code POST /v1/schedules}), schedule i firing at second {@code
   * i % 60} of each minute like the jobs file's; fails naming the first refusal.
   */
  static ScheduleEdits create(String baseUrl, String keyPrefix, List<String> names) {
    ScheduleEdits edits = new ScheduleEdits(baseUrl, keyPrefix, names);
    for (int i = 0; i < names.size(); i++) {
      Load.Answer a =
          edits
              .http
              .post(
                  baseUrl + "/v1/schedules",
                  Bench.OPERATOR_TOKEN,
                  keyPrefix + "-create-" + i,
                  definition(names.get(i), i % 60, 0, true))
              .await();
      if (a.status() / 100 != 2) {
        edits.close();
        throw new IllegalStateException(
            "POST /v1/schedules (" + names.get(i) + ") answered " + a.status() + ": " + a.body());
      }
    }
    return edits;
  }

  /**
   * A schedule's definition in the API's terms (the jobs file's fields): a one-minute cron at
   * {@code second}, UTC, the noop handler, and a param that each edit changes. The name is in the
   * body of a create and in the path of a change.
   */
  static String definition(String name, int second, long edit, boolean withName) {
    return "{"
        + (withName ? "\"name\":\"" + name + "\"," : "")
        + "\"schedule\":{\"cron\":\""
        + second
        + " * * * * *\"},\"zone\":\"UTC\",\"handler\":\"noop\",\"params\":{\"edit\":\""
        + edit
        + "\"}}";
  }

  /** Starts editing at {@code perMinute}, round robin over the schedules. */
  void start(int perMinute) {
    long periodMicros = Math.max(1, 60_000_000L / Math.max(1, perMinute));
    ticker.scheduleAtFixedRate(this::editNext, 0, periodMicros, TimeUnit.MICROSECONDS);
  }

  private void editNext() {
    if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
      inFlight.decrementAndGet();
      behind.incrementAndGet();
      return;
    }
    long n = seq.incrementAndGet();
    int i = (int) (n % names.size());
    String name = names.get(i);
    String url = baseUrl + "/v1/schedules/" + name;
    http.get(url, Bench.OPERATOR_TOKEN)
        .compose(
            read -> {
              String etag = read.headers().get("ETag");
              if (read.status() != 200 || etag == null) {
                return Future.failedFuture(
                    "GET " + name + ": " + read.status() + " (ETag " + etag + ") " + read.body());
              }
              long sent = System.nanoTime();
              return http.put(
                      url,
                      Bench.OPERATOR_TOKEN,
                      keyPrefix + "-edit-" + n,
                      etag,
                      definition(name, i % 60, n, false))
                  .compose(
                      put -> {
                        if (put.status() / 100 != 2) {
                          return Future.failedFuture(
                              "PUT " + name + ": " + put.status() + " " + put.body());
                        }
                        synchronized (putMicros) {
                          putMicros.recordValue(
                              Math.min(
                                  putMicros.getHighestTrackableValue(),
                                  (System.nanoTime() - sent) / 1000));
                        }
                        return Future.succeededFuture();
                      });
            })
        .onComplete(
            done -> {
              inFlight.decrementAndGet();
              if (done.succeeded()) {
                ok.incrementAndGet();
              } else {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, String.valueOf(done.cause().getMessage()));
              }
            });
  }

  /** Stops sending, waits up to 30 s for the edits in flight, and says what they did. */
  Result stop() {
    ticker.shutdownNow();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (inFlight.get() > 0 && System.nanoTime() < deadline) {
      Bench.sleep(50);
    }
    synchronized (putMicros) {
      return new Result(ok.get(), failed.get(), behind.get(), firstFailure.get(), putMicros.copy());
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    http.close();
  }
}
