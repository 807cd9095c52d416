package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The load generator against a local HTTP server whose answers the tests control. */
class LoadTest {

  private Vertx vertx;
  private HttpServer server;
  private final AtomicLong received = new AtomicLong();
  // How the server answers a request for /{seq}; set by each test before it starts.
  private volatile BiConsumer<HttpServerRequest, Long> answer;

  @BeforeEach
  void startServer() {
    vertx = Vertx.vertx();
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  received.incrementAndGet();
                  answer.accept(req, Long.parseLong(req.path().substring(1)));
                })
            .listen(0, "127.0.0.1")
            .await();
  }

  @AfterEach
  void stopServer() {
    vertx.close().await();
  }

  private Load.Call getSeq() {
    String base = "http://127.0.0.1:" + server.actualPort() + "/";
    return (http, client, seq) -> http.get(base + seq, "token").map(a -> a.status() == 200);
  }

  private void after(long millis, HttpServerRequest req, int status) {
    vertx.setTimer(millis, id -> req.response().setStatusCode(status).end());
  }

  @Test
  void theClosedLoopCountsOnlyCallsInsideTheMeasuredPeriod() {
    answer = (req, seq) -> after(20, req, 200);

    Load.Result r = Load.run(4, 1, 2, getSeq());

    // 4 clients, one call each every ~20 ms, for 2 measured seconds: at most 400
    assertThat(r.ok()).isBetween(250L, 400L);
    assertThat(r.errors()).isZero();
    assertThat(r.perSecond()).isEqualTo(r.ok() / 2.0);
    assertThat(r.p50Ms()).isGreaterThanOrEqualTo(20.0);
    // the warm-up's second of calls reached the server but is not counted
    assertThat(received.get()).isGreaterThan(r.ok() + 100);
  }

  @Test
  void failedAnswersAreErrorsNotThroughputOrLatency() {
    answer = (req, seq) -> after(5, req, seq % 2 == 0 ? 200 : 500);

    Load.Result r = Load.run(2, 0, 1, getSeq());

    assertThat(r.ok()).isPositive();
    assertThat(r.errors()).isBetween(r.ok() - 2, r.ok() + 2);
    assertThat(r.micros().getTotalCount()).isEqualTo(r.ok());
  }

  @Test
  void aCallThatThrowsCountsAsAnErrorAndDoesNotHangTheRun() {
    Load.Call throwing =
        (http, client, seq) -> {
          throw new IllegalStateException("no request built");
        };

    Load.Result r =
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> Load.run(2, 0, 1, throwing));

    assertThat(r.ok()).isZero();
    assertThat(r.errors()).isPositive();
  }

  @Test
  void theOpenLoopSendsAtItsRateAndChargesAStallToEveryCallItHeldBack() {
    // The server holds the calls arriving in 300 ms after the 100th; with 4 connections, the
    // calls due meanwhile wait in the client's queue and are answered at once when sent.
    AtomicLong holdUntil = new AtomicLong();
    answer =
        (req, seq) -> {
          long now = System.currentTimeMillis();
          if (seq == 100) {
            holdUntil.set(now + 300);
          }
          long hold = holdUntil.get() - now;
          after(Math.max(1, hold), req, 200);
        };

    Load.Result r = Load.openLoop(100, 4, 0, 2, getSeq());

    assertThat(r.ok()).as("every call scheduled in 2 s at 100/s").isEqualTo(200);
    assertThat(r.errors()).isZero();
    assertThat(r.p50Ms()).isLessThan(50.0);
    // Measured from when each call was due, not from when a free connection sent it: the calls
    // that queued behind the stall are as late as the stall made them.
    assertThat(r.p99Ms()).isGreaterThan(200.0);
  }
}
