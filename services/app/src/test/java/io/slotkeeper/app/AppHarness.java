package io.slotkeeper.app;

import io.slotkeeper.commands.projection.ProjectionLag;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.SlotkeeperConfig;
import io.slotkeeper.testing.TestInfra;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** A running slotkeeper on a fresh database and the test Redis, plus an HTTP client for it. */
final class AppHarness implements AutoCloseable {

  static final String CLIENT = "client-token-for-tests-0001";
  static final String OPERATOR = "operator-token-for-tests-0001";

  final PostgresEndpoint db;
  final Slotkeeper app;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  AppHarness(String purpose, Map<String, String> extraEnv) {
    this(purpose, TestInfra.freshDatabase(purpose), extraEnv);
  }

  /** On the given database (e.g. of a PostgreSQL server the test owns and may stop). */
  AppHarness(String purpose, PostgresEndpoint db, Map<String, String> extraEnv) {
    this.db = db;
    Map<String, String> env = new HashMap<>();
    env.put("SLOTKEEPER_PG_URL", db.url());
    env.put("SLOTKEEPER_REDIS_URL", TestInfra.redis().connectionString());
    env.put("SLOTKEEPER_HTTP_PORT", "0");
    env.put("SLOTKEEPER_GRPC_PORT", "0");
    env.put("SLOTKEEPER_INSTANCE_ID", "test-" + purpose);
    env.put("SLOTKEEPER_CLIENT_TOKEN", CLIENT);
    env.put("SLOTKEEPER_OPERATOR_TOKEN", OPERATOR);
    // The shipped jobs would process orders behind the tests' backs; tests that want timers ask.
    env.put("SLOTKEEPER_TIMERS_ENABLED", "false");
    env.putAll(extraEnv);
    app = Slotkeeper.start(SlotkeeperConfig.from(env));
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + app.httpPort() + path);
  }

  HttpResponse<String> post(String path, String token, String key, String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return send(b.build());
  }

  HttpResponse<String> get(String path, String token) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20)).GET();
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return send(b.build());
  }

  /**
   * Whether every request and answer is checked against openapi.yaml ({@link ContractCheck}); off
   * only for the fault property, whose injected faults the service may answer outside the contract
   * (that test checks effects, not answers).
   */
  volatile boolean checkContract = true;

  /**
   * Sends the request; its answer must be one openapi.yaml declares, see {@link #checkContract}.
   */
  HttpResponse<String> send(HttpRequest request) {
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    if (checkContract) {
      ContractCheck.check(request, response);
    }
    return response;
  }

  /** Waits (read models lag) until GET path answers 200 with JSON matching the predicate. */
  void awaitJson(String path, java.util.function.Predicate<io.vertx.core.json.JsonObject> ok) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              HttpResponse<String> r = get(path, OPERATOR);
              return r.statusCode() == 200 && ok.test(new io.vertx.core.json.JsonObject(r.body()));
            });
  }

  long count(String sql) {
    return TestInfra.queryLong(db, sql);
  }

  String queryString(String sql) {
    return TestInfra.queryString(db, sql);
  }

  /** Everything a bad request must leave untouched: the write side, every read table, the keys. */
  String stateFingerprint() {
    return fingerprint("true");
  }

  /**
   * Like {@link #stateFingerprint()}, but not counting keys that hold a saved rejection (4xx): a
   * well-formed request refused by the domain (wrong state; not a 404) saves its answer under its
   * key, as the Idempotency-Key semantics require, without any effect.
   */
  String effectsFingerprint() {
    return fingerprint("NOT (state = 'COMPLETED' AND response_status >= 400)");
  }

  private String fingerprint(String keysCounted) {
    // Read tables follow the store within milliseconds: compare them only once they have caught up.
    ProjectionLag lag = app.writeModel().projectionLag();
    org.awaitility.Awaitility.await()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(10))
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              lag.poll();
              return lag.lag().values().stream().allMatch(behind -> behind == 0);
            });
    StringBuilder sql =
        new StringBuilder("SELECT concat_ws('/', ")
            .append("(SELECT count(*) || ':' || coalesce(max(global_index), 0)")
            .append(" FROM domain_event_entry), (SELECT count(*) FROM command_ledger),")
            .append(" (SELECT count(*) FROM idempotency_keys WHERE ")
            .append(keysCounted)
            .append(")");
    for (String table :
        new String[] {
          "orders", "inventory", "inventory_log", "refunds", "job_runs", "job_controls", "reports"
        }) {
      sql.append(", (SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ")
          .append(table)
          .append(" t)");
    }
    return TestInfra.queryString(db, sql.append(")").toString());
  }

  @Override
  public void close() {
    app.close();
  }

  /**
   * A connection holding a SHARE lock on the command ledger in an open transaction: every command
   * then waits at its commit (each inserts its ledger row) until the caller rolls back or closes
   * it.
   */
  java.sql.Connection holdLedgerLock() throws java.sql.SQLException {
    java.sql.Connection lock =
        java.sql.DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
    lock.setAutoCommit(false);
    try (java.sql.Statement st = lock.createStatement()) {
      st.execute("LOCK TABLE command_ledger IN SHARE MODE");
    }
    return lock;
  }

  /** Waits until at least {@code sessions} of this database wait on a lock. */
  void awaitLockWaiters(int sessions) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                            + " current_database() AND wait_event_type = 'Lock'")
                    >= sessions);
  }
}
