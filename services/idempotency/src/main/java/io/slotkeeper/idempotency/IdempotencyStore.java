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
import java.util.function.Supplier;
import org.axonframework.common.jdbc.ConnectionProvider;

/**
 * Idempotency keys in PostgreSQL, shared by every instance and by HTTP and gRPC, each within its
 * principal ({@link IdempotencyKey}: a key row belongs to who sent it). A key's first request's
 * response is saved and replayed for the key's lifetime (the TTL, at least 24 hours by default).
 * Two ways to hold a key (concurrent requests' statements are shared, see {@link KeyBatcher}):
 *
 * <ul>
 *   <li>An operation that is exactly one command only <em>looks the key up</em> ({@link #lookup});
 *       a free key's row is written once, completed, in the command's own transaction ({@link
 *       #completeWithCommand}). Two concurrent requests with one key both run the command: its ID
 *       derives from the key, so the command ledger lets one apply and answers the other
 *       "duplicate"; a key taken meanwhile by another request fails the commit ({@link
 *       KeyTakenException}) and nothing applies.
 *   <li>Any other operation <em>claims</em> the key first ({@link #claim}: an IN_FLIGHT row, 409
 *       for a concurrent request), then completes or releases it. A claim whose holder died is
 *       taken over after the lock timeout; that is safe because command IDs derive from the key, so
 *       a re-execution is a duplicate.
 * </ul>
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
      "SELECT " + HOLDER_COLUMNS + " FROM idempotency_keys WHERE idem_key = $1 AND principal = $2";
  private static final String TAKE_OVER =
      "UPDATE idempotency_keys SET locked_until = now() + make_interval(secs => $2)"
          + " WHERE idem_key = $1 AND principal = $3 AND state = 'IN_FLIGHT'"
          + " AND locked_until < now()"
          + " RETURNING idem_key";
  private static final String COMPLETE =
      "UPDATE idempotency_keys SET state = 'COMPLETED', locked_until = NULL,"
          + " response_status = $2, response_headers = $3, response_body = $4"
          + " WHERE idem_key = $1 AND principal = $5";
  // A key's row, written whole with its response, unless a live request holds the key. Taken are
  // a key that has not expired, except an abandoned claim of the same request (the command ID
  // derives from the key, so running it again is safe).
  private static final String UPSERT_CONFLICT =
      " ON CONFLICT (idem_key, principal) DO UPDATE SET operation = EXCLUDED.operation,"
          + " fingerprint = EXCLUDED.fingerprint, state = 'COMPLETED', locked_until = NULL,"
          + " response_status = EXCLUDED.response_status,"
          + " response_headers = EXCLUDED.response_headers,"
          + " response_body = EXCLUDED.response_body, created_at = now(),"
          + " expires_at = EXCLUDED.expires_at"
          + " WHERE idempotency_keys.expires_at < now()"
          + " OR (idempotency_keys.state = 'IN_FLIGHT' AND idempotency_keys.locked_until < now()"
          + " AND idempotency_keys.operation = EXCLUDED.operation"
          + " AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)";
  private static final String UPSERT_COLUMNS =
      "INSERT INTO idempotency_keys (idem_key, principal, operation, fingerprint, state,"
          + " expires_at,"
          + " response_status, response_headers, response_body)";
  // The saved responses of a command transaction's requests, in one statement at its commit.
  static final String SAVE_ALL =
      UPSERT_COLUMNS
          + " SELECT k, p, o, f, 'COMPLETED', e, s, h::jsonb, b"
          + " FROM unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::int[],"
          + " ?::text[], ?::text[]) AS v(k, p, o, f, s, h, b),"
          + " (SELECT now() + make_interval(secs => ?) AS e) AS ttl"
          + UPSERT_CONFLICT;
  private static final String SAVE =
      UPSERT_COLUMNS
          + " VALUES ($1, $8, $2, $3, 'COMPLETED', now() + make_interval(secs => $4), $5, $6,"
          + " $7)"
          + UPSERT_CONFLICT;
  private static final String COMMAND_QUEUE = IdempotencyStore.class.getName() + ".withCommand";
  private static final String RELEASE =
      "DELETE FROM idempotency_keys WHERE idem_key = $1 AND principal = $2"
          + " AND state = 'IN_FLIGHT'";
  private static final String PURGE_EXPIRED =
      "DELETE FROM idempotency_keys WHERE expires_at < now()";

  // Statements of each kind on their way at once, and keys per statement (see KeyBatcher).
  private static final int CLAIMS_IN_FLIGHT = 2;
  private static final int MAX_CLAIMS = 100;

  private final Pool pool;
  private final ConnectionProvider commandTransactions;
  private final double ttlSeconds;
  private final double lockSeconds;
  private final KeyBatcher claims;
  private final KeyBatcher lookups;

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
    this.claims =
        new KeyBatcher(
            pool, KeyBatcher.Kind.CLAIM, lockSeconds, ttlSeconds, CLAIMS_IN_FLIGHT, MAX_CLAIMS);
    this.lookups =
        new KeyBatcher(
            pool, KeyBatcher.Kind.LOOKUP, lockSeconds, ttlSeconds, CLAIMS_IN_FLIGHT, MAX_CLAIMS);
  }

  /**
   * Claims the key for a request identified by operation and fingerprint. One statement answers
   * every outcome (shared with concurrent claims); only a key whose holder committed while the
   * claim ran needs a second read.
   */
  public Future<Claim> claim(IdempotencyKey key, String operation, String fingerprint) {
    return claims
        .submit(key, operation, fingerprint)
        .compose(
            outcome -> {
              if (outcome.claimed()) {
                return Future.succeededFuture(new Claim.Acquired());
              }
              if (outcome.holder() != null) {
                return held(operation, fingerprint, outcome.holder(), () -> takeOver(key));
              }
              return read(key, operation, fingerprint);
            });
  }

  /**
   * Looks the key up for a request that is exactly one command: {@link Claim.Free} when no live
   * request holds it (the command then saves its response, {@link #completeWithCommand}), else the
   * holder's answer, as for a claim. Writes nothing.
   */
  public Future<Claim> lookup(IdempotencyKey key, String operation, String fingerprint) {
    return lookups
        .submit(key, operation, fingerprint)
        .compose(
            outcome -> {
              Row row = outcome.holder();
              if (row == null || Boolean.TRUE.equals(row.getBoolean("expired"))) {
                return Future.succeededFuture(new Claim.Free());
              }
              // An abandoned claim of this request: its row is taken over when the command saves.
              return held(
                  operation, fingerprint, row, () -> Future.succeededFuture(new Claim.Free()));
            });
  }

  private Future<Claim> read(IdempotencyKey key, String operation, String fingerprint) {
    return pool.preparedQuery(READ)
        .execute(Tuple.of(key.value(), key.principal()))
        .compose(
            rows ->
                rows.size() == 0
                    // Released between our insert and this read: claim again.
                    ? claim(key, operation, fingerprint)
                    : held(operation, fingerprint, rows.iterator().next(), () -> takeOver(key)));
  }

  /**
   * The answer to a request for a key that {@code row} holds; {@code abandoned} answers for a claim
   * of the same request whose holder died.
   */
  private Future<Claim> held(
      String operation, String fingerprint, Row row, Supplier<Future<Claim>> abandoned) {
    if (!operation.equals(row.getString("operation"))
        || !fingerprint.equals(row.getString("fingerprint"))) {
      return Future.succeededFuture(new Claim.Mismatch(row.getString("operation")));
    }
    if ("COMPLETED".equals(row.getString("state"))) {
      return Future.succeededFuture(new Claim.Replay(stored(row)));
    }
    if (Boolean.TRUE.equals(row.getBoolean("abandoned"))) {
      return abandoned.get();
    }
    return Future.succeededFuture(new Claim.InFlight());
  }

  private Future<Claim> takeOver(IdempotencyKey key) {
    return pool.preparedQuery(TAKE_OVER)
        .execute(Tuple.of(key.value(), lockSeconds, key.principal()))
        .map(rows -> rows.size() == 1 ? new Claim.Acquired() : new Claim.InFlight());
  }

  /** Saves the response of the key's request; later requests replay it. */
  public Future<Void> complete(IdempotencyKey key, StoredResponse response) {
    return saveResponse(
            COMPLETE,
            Tuple.of(
                key.value(),
                response.status(),
                new JsonObject(new HashMap<>(response.headers())),
                response.body(),
                key.principal()),
            response.status())
        .mapEmpty();
  }

  /**
   * Runs a statement that saves a response: on the pool's asynchronous commit for a success (a
   * command commit stands behind it), with a synchronous commit for a rejection (none does).
   */
  private Future<RowSet<Row>> saveResponse(String sql, Tuple values, int status) {
    if (status < 400) {
      return pool.preparedQuery(sql).execute(values);
    }
    return pool.withTransaction(
        conn ->
            conn.query("SET LOCAL synchronous_commit = on")
                .execute()
                .compose(ignored -> conn.preparedQuery(sql).execute(values)));
  }

  /**
   * Saves the response of a looked-up key's request ({@link #lookup}) in the current command
   * transaction (call on the command thread, inside the transaction, e.g. from a {@code
   * SameTransactionWrite}): the rows of all the transaction's requests are written in one statement
   * when it commits, and roll back with it. A key that another request took meanwhile fails the
   * commit with {@link KeyTakenException}.
   */
  public void completeWithCommand(
      IdempotencyKey key, String operation, String fingerprint, StoredResponse response) {
    CommitQueues.current(COMMAND_QUEUE, ArrayList<Object[]>::new, this::saveAll)
        .add(
            new Object[] {
              key.value(),
              key.principal(),
              operation,
              fingerprint,
              response.status(),
              new JsonObject(new HashMap<>(response.headers())).encode(),
              response.body()
            });
  }

  private void saveAll(List<Object[]> rows) {
    int saved;
    try (Connection c = commandTransactions.getConnection();
        PreparedStatement ps = c.prepareStatement(SAVE_ALL)) {
      UnnestColumns.bind(
          c, ps, rows, "varchar", "varchar", "varchar", "varchar", "int4", "text", "text");
      ps.setDouble(8, ttlSeconds);
      saved = ps.executeUpdate();
    } catch (SQLException e) {
      if ("21000".equals(e.getSQLState())) {
        // One key twice in the statement (two operations' requests in one batch).
        throw new KeyTakenException(rows.size());
      }
      throw new IllegalStateException("cannot save the responses of idempotency keys", e);
    }
    if (saved < rows.size()) {
      throw new KeyTakenException(rows.size());
    }
  }

  /**
   * Saves the response of a looked-up key's request on its own (a rejection, a duplicate's answer),
   * with a synchronous commit for a rejection (no command commit stands behind it); false when
   * another request holds the key by now (then answer with the holder's, {@link #lookup}).
   */
  public Future<Boolean> save(
      IdempotencyKey key, String operation, String fingerprint, StoredResponse response) {
    return saveResponse(
            SAVE,
            Tuple.tuple()
                .addValue(key.value())
                .addValue(operation)
                .addValue(fingerprint)
                .addValue(ttlSeconds)
                .addValue(response.status())
                .addValue(new JsonObject(new HashMap<>(response.headers())))
                .addValue(response.body())
                .addValue(key.principal()),
            response.status())
        .map(rows -> rows.rowCount() == 1);
  }

  /** Forgets an in-flight key whose request failed for a reason worth retrying. */
  public Future<Void> release(IdempotencyKey key) {
    return pool.preparedQuery(RELEASE).execute(Tuple.of(key.value(), key.principal())).mapEmpty();
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
