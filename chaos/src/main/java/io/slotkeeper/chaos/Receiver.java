package io.slotkeeper.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.receiver.Delivery;
import io.slotkeeper.receiver.DeliveryHeaders;
import io.slotkeeper.receiver.DeliveryLedger;
import io.slotkeeper.receiver.Outcome;
import io.slotkeeper.receiver.Response;
import io.slotkeeper.receiver.Schema;
import io.slotkeeper.receiver.Signature;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The team's service that the chaos run's HTTP schedule calls, built on {@code slotkeeper-receiver}
 * as a team would build it with its plain JDBC API: verify the signature, read the headers, then
 * {@link DeliveryLedger#handle} with the team's effect, one {@code chaos_effects} row per key,
 * written in the ledger's transaction.
 *
 * <p>Its database ({@value #DATABASE}) is its own, on the run's PostgreSQL server but reached
 * directly, not through the fault proxy: it is the team's storage, not slotkeeper's. When that
 * server crashes, every delivery is answered 503 until it is back, and slotkeeper must retry.
 *
 * <p>While the faults play it also misbehaves as receivers and networks do, for a share of attempts
 * chosen by the fault seed: 503 or 429 (with {@code Retry-After: 1}) before anything is recorded;
 * an answer held past the attempt's timeout once the effect has committed, so the sender records a
 * timeout and its retry gets the recorded answer; and a request held as long before it reaches the
 * ledger, as a delayed packet would be, so that one sent before its lease changed hands arrives
 * after the next holder's and must be refused by the fence. {@link #refuseConnections} makes its
 * database unavailable on its own (slotkeeper's stays up).
 */
final class Receiver implements AutoCloseable {

  /** The receiver's database on the run's PostgreSQL server. */
  static final String DATABASE = "chaos_receiver";

  /** The secret's name in the target ({@code secretRef}); the instances read it from the env. */
  static final String SECRET_REF = "CHAOS";

  /** The percentages of attempts answered 503, 429, late and held while the faults play. */
  private static final int UNAVAILABLE_PERCENT = 5;

  private static final int THROTTLED_PERCENT = 5;
  private static final int LATE_PERCENT = 10;
  private static final int DELAYED_PERCENT = 5;

  private static final String TEXT = "text/plain; charset=utf-8";

  private static final String EFFECTS_TABLE =
      "CREATE TABLE IF NOT EXISTS chaos_effects ("
          + " idem_key text PRIMARY KEY, schedule text NOT NULL, slot timestamptz NOT NULL,"
          + " token bigint NOT NULL, attempt integer NOT NULL,"
          // clock_timestamp(): when the effect was written, after the fence row was locked
          + " at timestamptz NOT NULL DEFAULT clock_timestamp())";
  private static final String EFFECT =
      "INSERT INTO chaos_effects (idem_key, schedule, slot, token, attempt)"
          + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (idem_key) DO NOTHING";

  /**
   * One answer the receiver gave: when (after its transaction ended), to which schedule, under
   * which token (-1 and no schedule: the delivery could not be read).
   */
  record Answer(Instant at, String schedule, long token, int status) {}

  private enum Misbehaviour {
    NONE,
    UNAVAILABLE,
    THROTTLED,
    LATE,
    DELAYED
  }

  final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();

  /** Effects the ledger let through for a key that already had one (the table's key stops them). */
  final AtomicLong secondEffects = new AtomicLong();

  /** Deliveries answered 503 because their transaction failed (the database crashed or is down). */
  final AtomicLong notRecorded = new AtomicLong();

  private final Map<String, AtomicLong> misbehaved = new ConcurrentHashMap<>();
  private final PostgresEndpoint admin;
  private final PostgresEndpoint database;
  private final String secret;
  private final Duration late;
  private final long seed;
  private final DeliveryLedger ledger = new DeliveryLedger();
  private final HttpServer server;
  private final ExecutorService threads;
  private volatile Instant misbehaveUntil = Instant.MIN;

  private Receiver(
      PostgresEndpoint admin, String secret, Duration timeout, long seed, HttpServer server) {
    this.admin = admin;
    this.database = admin.withDatabase(DATABASE);
    this.secret = secret;
    this.late = timeout.plusSeconds(1);
    this.seed = seed;
    this.server = server;
    // Late answers hold their thread past the attempt's timeout; retries arrive meanwhile.
    this.threads = Executors.newFixedThreadPool(16);
  }

  /**
   * Creates the receiver's database and tables on {@code server} (the run's PostgreSQL, reached
   * directly) and starts listening on a free loopback port.
   *
   * @param timeout the target's timeout: a late answer comes a second after it
   */
  static Receiver start(PostgresEndpoint server, String secret, Duration timeout, long seed)
      throws SQLException {
    try (Connection c = connect(server, 10);
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + DATABASE);
    }
    PostgresEndpoint database = server.withDatabase(DATABASE);
    try (Connection c = connect(database, 10);
        Statement st = c.createStatement()) {
      Schema.create(c);
      st.execute(EFFECTS_TABLE);
    }
    try {
      HttpServer http =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      Receiver r = new Receiver(server, secret, timeout, seed, http);
      http.createContext("/deliveries", r::handle);
      http.setExecutor(r.threads);
      http.start();
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return server.getAddress().getPort();
  }

  String url() {
    return "http://127.0.0.1:" + port() + "/deliveries";
  }

  /** Misbehaves (503, 429, late answers) until {@code until}, then answers as soon as it can. */
  void misbehaveUntil(Instant until) {
    misbehaveUntil = until;
  }

  /**
   * Makes the receiver's database refuse connections ({@code ALLOW_CONNECTIONS false}) and ends its
   * open ones, mid-transaction or mid-commit as they may be; or lets it accept them again.
   */
  void refuseConnections(boolean refuse) throws SQLException {
    try (Connection c = connect(admin, 5);
        Statement st = c.createStatement()) {
      st.execute("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS " + !refuse);
      if (refuse) {
        st.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + DATABASE
                + "'");
      }
    }
  }

  /** How many attempts got each misbehaviour. */
  Map<String, Long> misbehaved() {
    Map<String, Long> out = new TreeMap<>();
    misbehaved.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** The answers given, counted by status. */
  Map<Integer, Long> answersByStatus() {
    Map<Integer, Long> out = new TreeMap<>();
    answers.forEach(a -> out.merge(a.status(), 1L, Long::sum));
    return out;
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      Signature.Verification signature =
          Signature.verify(
              secret,
              ex.getRequestHeaders().getFirst(DeliveryHeaders.SIGNATURE),
              body,
              Instant.now(),
              Signature.DEFAULT_TOLERANCE);
      if (!signature.valid()) {
        answer(ex, null, 401, TEXT, "the signature is refused: " + signature.detail());
        return;
      }
      Delivery delivery;
      try {
        delivery = DeliveryHeaders.read(ex.getRequestHeaders()::getFirst, body);
      } catch (DeliveryHeaders.InvalidDeliveryException e) {
        answer(ex, null, 400, TEXT, "bad headers: " + e.errors());
        return;
      }
      Misbehaviour misbehaviour = misbehaviour(delivery);
      if (misbehaviour == Misbehaviour.UNAVAILABLE) {
        answer(ex, delivery, 503, TEXT, "unavailable (chaos)");
        return;
      }
      if (misbehaviour == Misbehaviour.THROTTLED) {
        ex.getResponseHeaders().set("Retry-After", "1");
        answer(ex, delivery, 429, TEXT, "too many requests (chaos)");
        return;
      }
      if (misbehaviour == Misbehaviour.DELAYED) {
        Chaos.sleep(late.toMillis());
      }
      Outcome outcome;
      try (Connection c = connect(database, 2)) {
        outcome = ledger.handle(c, delivery, this::effect);
      } catch (SQLException | RuntimeException e) {
        // rolled back, nothing recorded: slotkeeper retries a 503
        notRecorded.incrementAndGet();
        answer(ex, delivery, 503, TEXT, "not recorded: " + e.getMessage());
        return;
      }
      if (misbehaviour == Misbehaviour.LATE) {
        Chaos.sleep(late.toMillis());
      }
      answer(
          ex,
          delivery,
          outcome.status(),
          outcome.problem() ? "application/problem+json" : "application/json",
          outcome.body());
    } finally {
      ex.close();
    }
  }

  /** The team's effect: one row per key, in the ledger's transaction. */
  private Response effect(Connection c, Delivery d) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(EFFECT)) {
      ps.setString(1, d.idempotencyKey());
      ps.setString(2, d.schedule());
      ps.setTimestamp(3, Timestamp.from(d.slot()));
      ps.setLong(4, d.fencingToken());
      ps.setInt(5, d.attempt());
      if (ps.executeUpdate() == 0) {
        // The ledger claimed a key whose effect had committed: its own dedupe failed.
        secondEffects.incrementAndGet();
        return new Response(500, "a second effect for key " + d.idempotencyKey());
      }
    }
    return Response.ok("{\"effect\":\"" + d.idempotencyKey() + "\"}");
  }

  /** The attempt's misbehaviour: the same for the same seed, key and attempt. */
  private Misbehaviour misbehaviour(Delivery d) {
    if (Instant.now().isAfter(misbehaveUntil)) {
      return Misbehaviour.NONE;
    }
    int roll =
        new SplittableRandom(seed * 31 + (d.idempotencyKey() + "#" + d.attempt()).hashCode())
            .nextInt(100);
    Misbehaviour m =
        roll < UNAVAILABLE_PERCENT
            ? Misbehaviour.UNAVAILABLE
            : roll < UNAVAILABLE_PERCENT + THROTTLED_PERCENT
                ? Misbehaviour.THROTTLED
                : roll < UNAVAILABLE_PERCENT + THROTTLED_PERCENT + LATE_PERCENT
                    ? Misbehaviour.LATE
                    : roll
                            < UNAVAILABLE_PERCENT
                                + THROTTLED_PERCENT
                                + LATE_PERCENT
                                + DELAYED_PERCENT
                        ? Misbehaviour.DELAYED
                        : Misbehaviour.NONE;
    if (m != Misbehaviour.NONE) {
      misbehaved.computeIfAbsent(m.name(), k -> new AtomicLong()).incrementAndGet();
    }
    return m;
  }

  /** Answers, and notes the answer ({@code d} null: the delivery could not be read). */
  private void answer(HttpExchange ex, Delivery d, int status, String contentType, String text)
      throws IOException {
    answers.add(
        new Answer(
            Instant.now(),
            d == null ? null : d.schedule(),
            d == null ? -1 : d.fencingToken(),
            status));
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** A connection to {@code endpoint} that gives up connecting after the given seconds. */
  static Connection connect(PostgresEndpoint endpoint, int connectTimeoutSeconds)
      throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", endpoint.user());
    p.setProperty("password", endpoint.password());
    p.setProperty("connectTimeout", Integer.toString(connectTimeoutSeconds));
    // Beyond the ledger's 10 s statement timeout: a server that stops answering ends the attempt.
    p.setProperty("socketTimeout", "20");
    return DriverManager.getConnection(endpoint.jdbcUrl(), p);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
