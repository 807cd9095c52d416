package io.slotkeeper.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.receiver.ReceiverHandler;
import io.slotkeeper.receiver.Response;
import io.slotkeeper.receiver.Schema;
import io.slotkeeper.scheduler.schedule.job.HttpTarget;
import io.slotkeeper.slots.AttemptFailedException;
import io.slotkeeper.slots.SlotCommands;
import io.slotkeeper.slots.SlotRun;
import io.slotkeeper.testing.DatabaseHarness;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The delivery against a real receiver ({@code receiver/}'s {@link ReceiverHandler} and ledger on a
 * Vert.x HTTP server, counting its effects in a table), on real PostgreSQL. The handler is driven
 * attempt by attempt as the slot runner drives it; the retry timing itself is the timers'.
 */
class HttpDeliveryIT {

  private static final String SECRET = "whsec_delivery_it";
  private static final Instant NOMINAL = Instant.parse("2026-01-01T00:00:00Z");
  private static DatabaseHarness harness;
  private static Database db;
  private static Vertx vertx;
  private static int port;
  private static HttpDelivery delivery;
  private static SimpleMeterRegistry meters;
  private static final Map<String, HttpTarget> targets = new ConcurrentHashMap<>();
  private static final AtomicInteger flakyCalls = new AtomicInteger();
  private static final AtomicInteger slowCalls = new AtomicInteger();

  @BeforeAll
  static void start() throws Exception {
    harness = new DatabaseHarness("http_delivery");
    db = harness.database(6, "http-delivery-it");
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      Schema.create(c);
      st.execute("CREATE TABLE effects (idem_key text NOT NULL, attempt int NOT NULL)");
    }
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    // The first call answers 500 before the receiver sees it; later calls reach it.
    router
        .post("/flaky")
        .handler(
            ctx -> {
              if (flakyCalls.incrementAndGet() == 1) {
                ctx.response().setStatusCode(500).end("try again");
              } else {
                ctx.next();
              }
            });
    // The first call reaches the receiver only after the sender's timeout.
    router
        .post("/slow")
        .handler(
            ctx -> {
              if (slowCalls.incrementAndGet() == 1) {
                ctx.request().pause();
                vertx.setTimer(
                    1_500,
                    id -> {
                      ctx.request().resume();
                      ctx.next();
                    });
              } else {
                ctx.next();
              }
            });
    router.post("/missing").handler(ctx -> ctx.response().setStatusCode(404).end("no such hook"));
    router
        .post("/busy")
        .handler(
            ctx ->
                ctx.response().setStatusCode(429).putHeader("Retry-After", "7").end("slow down"));
    ReceiverHandler receiver =
        ReceiverHandler.builder(db.dataSource(), List.of(SECRET), HttpDeliveryIT::effect).build();
    for (String path : List.of("/ok", "/flaky", "/slow")) {
      receiver.mount(router.post(path));
    }
    port =
        vertx
            .createHttpServer()
            .requestHandler(router)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get()
            .actualPort();
    meters = new SimpleMeterRegistry();
    delivery =
        new HttpDelivery(
            vertx,
            new DeliverySettings("", 8, 100, Duration.ofSeconds(5)),
            TargetGuard.of("", true),
            new HttpDelivery.Wiring(
                name -> Optional.ofNullable(targets.get(name)),
                variable ->
                    variable.equals("SLOTKEEPER_SECRET_IT")
                        ? Optional.of(SECRET)
                        : Optional.empty(),
                new DeliveryAttempts(db.dataSource()),
                new SlotkeeperMetrics(meters),
                "it-1",
                Clock.systemUTC()));
  }

  @AfterAll
  static void stop() throws Exception {
    delivery.close();
    vertx.close().toCompletionStage().toCompletableFuture().get();
    harness.close();
  }

  static Response effect(Connection c, io.slotkeeper.receiver.Delivery d)
      throws java.sql.SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects VALUES (?, ?)")) {
      ps.setString(1, d.idempotencyKey());
      ps.setInt(2, d.attempt());
      ps.executeUpdate();
    }
    return Response.ok("{\"done\":\"" + d.idempotencyKey() + "\"}");
  }

  private static String schedule(String name, String path, Duration timeout) {
    targets.put(
        name,
        new HttpTarget(
            URI.create("http://127.0.0.1:" + port + path),
            "POST",
            Map.of("Content-Type", "application/json"),
            "{\"schedule\":\"{{schedule}}\",\"slot\":\"{{slot}}\"}",
            timeout,
            "IT",
            0));
    return name;
  }

  private static SlotRun run(String schedule, int attempt, long token) {
    return new SlotRun(
        schedule, NOMINAL, SlotCommands.slotId(schedule, NOMINAL), attempt, Map.of(), token);
  }

  private static long effects(String schedule) {
    return harness.queryLong(
        "SELECT count(*) FROM effects WHERE idem_key = '"
            + SlotCommands.commandId(schedule, NOMINAL, "http")
            + "'");
  }

  private static List<String> attempts(String schedule) {
    return List.of(
        harness
            .queryString(
                "SELECT coalesce(string_agg(attempt || ':' || outcome || ':' || coalesce(status, 0)"
                    + " || ':' || idem_key, ',' ORDER BY sent_at), '') FROM delivery_attempts"
                    + " WHERE schedule = '"
                    + schedule
                    + "'")
            .split(","));
  }

  private static double counted(String schedule, String outcome) {
    var c =
        meters
            .find("slotkeeper.deliveries")
            .tag("schedule", schedule)
            .tag("outcome", outcome)
            .counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void a500ThenA200AreTwoAttemptsWithOneKeyAndOneEffect() throws Exception {
    String s = schedule("flaky", "/flaky", Duration.ofSeconds(5));
    assertThatThrownBy(() -> delivery.run(run(s, 1, 1)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isTrue());
    // The signature verified: the receiver made the effect and answered 200.
    assertThat(delivery.run(run(s, 2, 1))).containsEntry("httpStatus", 200L);
    assertThat(effects(s)).isEqualTo(1);
    String key = SlotCommands.commandId(s, NOMINAL, "http");
    assertThat(attempts(s)).containsExactly("1:RETRY_STATUS:500:" + key, "2:DELIVERED:200:" + key);
    assertThat(
            harness.queryString(
                "SELECT response_head FROM delivery_attempts WHERE schedule = 'flaky' AND attempt = 1"))
        .isEqualTo("try again");
    assertThat(counted(s, "retry_status")).isEqualTo(1);
    assertThat(counted(s, "delivered")).isEqualTo(1);
    assertThat(meters.find("slotkeeper.delivery").tag("schedule", s).timer().count()).isEqualTo(2);
  }

  @Test
  void aSlowReceiverPastTheTimeoutIsRetriedAndItsLateAnswerMakesNoSecondEffect() throws Exception {
    String s = schedule("slow", "/slow", Duration.ofMillis(500));
    assertThatThrownBy(() -> delivery.run(run(s, 1, 1)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isTrue());
    assertThat(delivery.run(run(s, 2, 1))).containsEntry("httpStatus", 200L);
    // The first request reaches the receiver late, with the same key: it is answered the replay.
    Thread.sleep(2_500);
    assertThat(slowCalls.get()).isEqualTo(2);
    assertThat(effects(s)).isEqualTo(1);
    assertThat(attempts(s).get(0)).startsWith("1:TIMEOUT:0:");
  }

  @Test
  void a404FailsTheSlotAtOnceAndATakeoverDoesNotSendItAgain() throws Exception {
    String s = schedule("missing", "/missing", Duration.ofSeconds(5));
    assertThatThrownBy(() -> delivery.run(run(s, 1, 1)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("404");
    assertThatThrownBy(() -> delivery.run(run(s, 2, 2)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("REFUSED (HTTP 404)");
    assertThat(attempts(s)).hasSize(1);
  }

  @Test
  void a429sRetryAfterIsTheDelayBeforeTheNextAttempt() {
    String s = schedule("busy", "/busy", Duration.ofSeconds(5));
    assertThatThrownBy(() -> delivery.run(run(s, 1, 1)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class,
            e -> {
              assertThat(e.retryable()).isTrue();
              assertThat(e.retryAfter()).hasValue(Duration.ofSeconds(7));
            });
  }

  @Test
  void aStaleFencingTokenIsRefusedByTheReceiverAndRecordedAsStale() throws Exception {
    // A newer holder (token 5) delivered one slot; the paused holder (token 3) wakes up and sends
    // its next slot under its old token.
    String s = schedule("fenced", "/ok", Duration.ofSeconds(5));
    assertThat(delivery.run(run(s, 1, 5))).containsEntry("httpStatus", 200L);
    Instant later = NOMINAL.plusSeconds(60);
    SlotRun stale = new SlotRun(s, later, SlotCommands.slotId(s, later), 1, Map.of(), 3);
    assertThatThrownBy(() -> delivery.run(stale))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("stale");
    assertThat(
            harness.queryString(
                "SELECT outcome || ':' || status FROM delivery_attempts WHERE schedule = 'fenced'"
                    + " AND fencing_token = 3"))
        .isEqualTo("STALE:409");
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM effects WHERE attempt = 1 AND idem_key = '"
                    + SlotCommands.commandId(s, later, "http")
                    + "'"))
        .isZero();
  }

  @Test
  void aForgedSignatureIsRefusedByTheReceiver() {
    targets.put(
        "forged",
        new HttpTarget(
            URI.create("http://127.0.0.1:" + port + "/ok"),
            "POST",
            Map.of(),
            "{}",
            Duration.ofSeconds(5),
            "OTHER",
            0));
    // OTHER has no secret in this test's environment: nothing is sent.
    assertThatThrownBy(() -> delivery.run(run("forged", 1, 1)))
        .hasMessageContaining("SLOTKEEPER_SECRET_OTHER");
    targets.put(
        "unsigned",
        new HttpTarget(
            URI.create("http://127.0.0.1:" + port + "/ok"),
            "POST",
            Map.of(),
            "{}",
            Duration.ofSeconds(5),
            null,
            0));
    assertThatThrownBy(() -> delivery.run(run("unsigned", 1, 1)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("401");
  }

  @Test
  void anAddressTheGuardRefusesIsNotSent() throws Exception {
    targets.put(
        "metadata",
        new HttpTarget(
            URI.create("http://169.254.169.254/latest/meta-data"),
            "GET",
            Map.of(),
            "",
            Duration.ofSeconds(1),
            null,
            0));
    assertThatThrownBy(() -> delivery.run(run("metadata", 1, 1)))
        .isInstanceOfSatisfying(
            AttemptFailedException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("link-local");
    assertThat(attempts("metadata").get(0)).startsWith("1:BLOCKED:0:");
  }
}
