package io.slotkeeper.idempotency;

import io.slotkeeper.platform.axon.CommitQueues;
import io.slotkeeper.platform.db.UnnestColumns;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.axonframework.common.jdbc.ConnectionProvider;

/**
 * Idempotency keys in PostgreSQL, shared by every instance and by HTTP and gRPC. A key is claimed
 * by an atomic insert (concurrent requests' claims share statements, see {@link ClaimBatcher}); its
 * first request's response is saved and replayed for the key's lifetime (the TTL, at least 24 hours
 * by default). A claim whose holder died is taken over after the lock timeout; that is safe because
 * command IDs derive from the key, so a re-execution is a duplicate.
 *
 * <p>Durability: the store may run on a pool with {@code synchronous_commit = off} (see {@link
 * io.slotkeeper.platform.db.ReadPools#createKeyStore}), which saves a WAL flush per claim and per
 * saved success. Nothing acknowledged can be lost that way: the claim's WAL record precedes the
 * command's own synchronous commit, which flushes it; a success whose saved response is lost in a
 * PostgreSQL crash is answered again, identically, by re-running the command, which the command
 * ledger answers as a duplicate with its recorded result. A rejection has no command commit to
 * stand on, so its response is always saved with a synchronous commit.
 *
 * <p>The response of a request whose command applied is saved in the command's own transaction
 * ({@link #completeWithCommand}): it commits exactly when the command does, and the request costs
 * no round trip after the command.
 */
public final class IdempotencyStore {

  // What a request needs to know of the row that holds its key (also read by the claim itself).
  static final String HOLDER_COLUMNS =
      "idempotency_keys.operation, idempotency_keys.fingerprint, idempotency_keys.state,"
          + " idempotency_keys.locked_until < now() AS abandoned,"
          + " idempotency_keys.response_status, idempotency_keys.response_headers,"
          + " idempotency_keys.response_body";
  static final String READ =
      "SELECT " + HOLDER_COLUMNS + " FROM idempotency_keys WHERE idem_key = $1";
  private static final String TAKE_OVER =
      "UPDATE idempotency_keys SET locked_until = now() + make_interval(secs => $2)"
          + " WHERE idem_key = $1 AND state = 'IN_FLIGHT' AND locked_until < now()"
          + " RETURNING idem_key";
  private static final String COMPLETE =
      "UPDATE idempotency_keys SET state = 'COMPLETED', locked_until = NULL,"
          + " response_status = $2, response_headers = $3, response_body = $4"
          + " WHERE idem_key = $1";
  // The responses of a command transaction's requests, in one statement at its commit.
  static final String COMPLETE_ALL =
      "UPDATE idempotency_keys k SET state = 'COMPLETED', locked_until = NULL,"
          + " response_status = v.status, response_headers = v.headers::jsonb,"
          + " response_body = v.body"
          + " FROM unnest(?::varchar[], ?::int[], ?::text[], ?::text[])"
          + " AS v(idem_key, status, headers, body) WHERE k.idem_key = v.idem_key"
          // The keys again, as an index condition (see KEYED_PLANS): not a join the plan may
          // turn into a scan of the whole table.
          + " AND k.idem_key = ANY(?::varchar[])";
  private static final String COMMAND_QUEUE = IdempotencyStore.class.getName() + ".withCommand";
  private static final String RELEASE =
      "DELETE FROM idempotency_keys WHERE idem_key = $1 AND state = 'IN_FLIGHT'";
  private static final String PURGE_EXPIRED =
      "DELETE FROM idempotency_keys WHERE expires_at < now()";

  // Claim statements on their way at once, and claims per statement (see ClaimBatcher).
  private static final int CLAIMS_IN_FLIGHT = 2;
  private static final int MAX_CLAIMS = 100;

  private final Pool pool;
  private final ConnectionProvider commandTransactions;
  private final double ttlSeconds;
  private final double lockSeconds;
  private final ClaimBatcher claims;

  /**
   * {@code pool} claims, reads and saves keys on its own; {@code commandTransactions} is the write
   * side's connection provider, whose current transaction {@link #completeWithCommand} joins.
   */
  public IdempotencyStore(
      Pool pool, ConnectionProvider commandTransactions, Duration ttl, Duration lockTimeout) {
    this.pool = pool;
    this.commandTransactions = commandTransactions;
    this.ttlSeconds = ttl.toMillis() / 1000.0;
    this.lockSeconds = lockTimeout.toMillis() / 1000.0;
    this.claims = new ClaimBatcher(pool, lockSeconds, ttlSeconds, CLAIMS_IN_FLIGHT, MAX_CLAIMS);
  }

  /**
   * Claims the key for a request identified by operation and fingerprint. One statement answers
   * every outcome (shared with concurrent claims); only a key whose holder committed while the
   * claim ran needs a second read.
   */
  public Future<Claim> claim(String key, String operation, String fingerprint) {
    return claims
        .claim(key, operation, fingerprint)
        .compose(
            outcome -> {
              if (outcome.claimed()) {
                return Future.succeededFuture(new Claim.Acquired());
              }
              if (outcome.holder() != null) {
                return held(key, operation, fingerprint, outcome.holder());
              }
              return read(key, operation, fingerprint);
            });
  }

  private Future<Claim> read(String key, String operation, String fingerprint) {
    return pool.preparedQuery(READ)
        .execute(Tuple.of(key))
        .compose(
            rows ->
                rows.size() == 0
                    // Released between our insert and this read: claim again.
                    ? claim(key, operation, fingerprint)
                    : held(key, operation, fingerprint, rows.iterator().next()));
  }

  /** The answer to a claim of a key that {@code row} holds. */
  private Future<Claim> held(String key, String operation, String fingerprint, Row row) {
    if (!operation.equals(row.getString("operation"))
        || !fingerprint.equals(row.getString("fingerprint"))) {
      return Future.succeededFuture(new Claim.Mismatch(row.getString("operation")));
    }
    if ("COMPLETED".equals(row.getString("state"))) {
      return Future.succeededFuture(new Claim.Replay(stored(row)));
    }
    if (Boolean.TRUE.equals(row.getBoolean("abandoned"))) {
      return takeOver(key);
    }
    return Future.succeededFuture(new Claim.InFlight());
  }

  private Future<Claim> takeOver(String key) {
    return pool.preparedQuery(TAKE_OVER)
        .execute(Tuple.of(key, lockSeconds))
        .map(rows -> rows.size() == 1 ? new Claim.Acquired() : new Claim.InFlight());
  }

  /** Saves the response of the key's request; later requests replay it. */
  public Future<Void> complete(String key, StoredResponse response) {
    Tuple values =
        Tuple.of(
            key,
            response.status(),
            new JsonObject(new HashMap<>(response.headers())),
            response.body());
    if (response.status() < 400) {
      return pool.preparedQuery(COMPLETE).execute(values).mapEmpty();
    }
    return pool.withTransaction(
        conn ->
            conn.query("SET LOCAL synchronous_commit = on")
                .execute()
                .compose(ignored -> conn.preparedQuery(COMPLETE).execute(values))
                .mapEmpty());
  }

  /**
   * Saves the response of the key's request in the current command transaction (call on the command
   * thread, inside the transaction, e.g. from a {@code SameTransactionWrite}): the responses of all
   * the transaction's requests are written in one statement when it commits, and roll back with it.
   */
  public void completeWithCommand(String key, StoredResponse response) {
    CommitQueues.current(COMMAND_QUEUE, ArrayList<Object[]>::new, this::completeAll)
        .add(
            new Object[] {
              key,
              response.status(),
              new JsonObject(new HashMap<>(response.headers())).encode(),
              response.body()
            });
  }

  private void completeAll(List<Object[]> rows) {
    try (Connection c = commandTransactions.getConnection();
        PreparedStatement ps = c.prepareStatement(COMPLETE_ALL)) {
      UnnestColumns.bind(c, ps, rows, "varchar", "int4", "text", "text");
      ps.setArray(5, c.createArrayOf("varchar", rows.stream().map(r -> r[0]).toArray()));
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot save the responses of idempotency keys", e);
    }
  }

  /** Forgets an in-flight key whose request failed for a reason worth retrying. */
  public Future<Void> release(String key) {
    return pool.preparedQuery(RELEASE).execute(Tuple.of(key)).mapEmpty();
  }

  /** Deletes expired keys; returns how many. */
  public Future<Integer> purgeExpired() {
    return pool.query(PURGE_EXPIRED).execute().map(RowSet::rowCount);
  }

  private static StoredResponse stored(Row row) {
    Map<String, String> headers = new HashMap<>();
    JsonObject json = row.getJsonObject("response_headers");
    if (json != null) {
      json.forEach(e -> headers.put(e.getKey(), String.valueOf(e.getValue())));
    }
    return new StoredResponse(
        row.getInteger("response_status"), headers, row.getString("response_body"));
  }
}
