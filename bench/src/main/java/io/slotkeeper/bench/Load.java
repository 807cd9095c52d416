package io.slotkeeper.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop load generator: {@code clients} threads, each with exactly one request in flight,
 * for a warm-up and then a measured period. Only calls that start and end inside the measured
 * period count; latencies go to an HdrHistogram (microseconds).
 */
final class Load {

  /** One request of client {@code client}, its {@code seq}-th; answers whether it succeeded. */
  @FunctionalInterface
  interface Call {
    boolean call(int client, long seq) throws Exception;
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

  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Load() {}

  static Result run(int clients, int warmupSeconds, int seconds, Call call) {
    long start = System.nanoTime();
    long measureFrom = start + warmupSeconds * 1_000_000_000L;
    long measureTo = measureFrom + seconds * 1_000_000_000L;
    AtomicLong ok = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    List<Histogram> histograms = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      int client = i;
      Histogram h = new Histogram(60_000_000L, 3);
      histograms.add(h);
      Thread t =
          new Thread(
              () -> {
                long seq = 0;
                while (true) {
                  long t0 = System.nanoTime();
                  if (t0 >= measureTo) {
                    return;
                  }
                  boolean success;
                  try {
                    success = call.call(client, seq++);
                  } catch (Exception e) {
                    success = false;
                  }
                  long t1 = System.nanoTime();
                  if (t0 >= measureFrom && t1 <= measureTo) {
                    if (success) {
                      ok.incrementAndGet();
                      h.recordValue(Math.min((t1 - t0) / 1000, 60_000_000L));
                    } else {
                      errors.incrementAndGet();
                    }
                  }
                }
              },
              "load-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    Histogram all = new Histogram(60_000_000L, 3);
    histograms.forEach(all::add);
    return new Result(ok.get(), errors.get(), seconds, all);
  }

  /** A JSON POST with bearer token and Idempotency-Key. */
  static HttpResponse<String> post(String url, String token, String key, String json)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A GET with bearer token. */
  static HttpResponse<String> get(String url, String token) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
