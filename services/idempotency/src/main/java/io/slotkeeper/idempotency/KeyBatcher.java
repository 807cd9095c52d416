package io.slotkeeper.idempotency;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Claims or lookups of concurrent requests' keys in shared statements: each was a round trip (and a
 * claim a transaction) of its own, which on a busy 2-core machine cost PostgreSQL more CPU than the
 * request's command. Natural batching, like the write side's command batcher: a claim goes at once
 * while fewer than {@code maxInFlight} statements are on their way, otherwise it waits and the next
 * statement takes up to {@code maxBatch} waiting claims. A key appears at most once per statement
 * (PostgreSQL refuses to update one row twice in an INSERT ... ON CONFLICT); its second claim goes
 * in the next one. Each claim is answered on the context that asked.
 */
final class KeyBatcher {

  /** What a statement does with its keys. */
  enum Kind {
    /** Claim each free key (insert it IN_FLIGHT) and return the holder of the others. */
    CLAIM,
    /** Only read the holder of each key (none for an absent or expired key): no write. */
    LOOKUP
  }

  // The claim of IdempotencyStore for many keys, answered in one round trip: each key comes back
  // with whether it was claimed (inserted, or expired and replaced) and the row that held it before
  // the statement (ignored when claimed), so a replay, an in-flight or a mismatched key needs no
  // second statement. The outer SELECT reads the snapshot taken before the insert: a key inserted
  // by a transaction that committed meanwhile comes back with no row, and the store reads it again.
  static final String CLAIM_ALL =
      "WITH c AS (SELECT k, p, o, f FROM unnest($1::varchar[], $2::varchar[],"
          + " $3::varchar[], $4::varchar[]) AS c(k, p, o, f)),"
          + " claimed AS (INSERT INTO idempotency_keys (idem_key, principal, operation,"
          + " fingerprint, state, locked_until, expires_at)"
          + " SELECT k, p, o, f, 'IN_FLIGHT', now() + make_interval(secs => $5),"
          + " now() + make_interval(secs => $6) FROM c"
          + " ON CONFLICT (idem_key, principal) DO UPDATE SET operation = EXCLUDED.operation,"
          + " fingerprint = EXCLUDED.fingerprint, state = 'IN_FLIGHT',"
          + " locked_until = EXCLUDED.locked_until, response_status = NULL,"
          + " response_headers = NULL, response_body = NULL, created_at = now(),"
          + " expires_at = EXCLUDED.expires_at"
          // An expired key is as good as absent.
          + " WHERE idempotency_keys.expires_at < now()"
          + " RETURNING idem_key, principal)"
          + " SELECT c.k AS idem_key, c.p AS principal,"
          + " (c.k, c.p) IN (SELECT idem_key, principal FROM claimed) AS claimed, "
          + IdempotencyStore.HOLDER_COLUMNS
          // The keys again, as an index condition: the pool keeps its plans (KEYED_PLANS), and a
          // plan made on a small table must not read the whole key index (KeyedPlansIT).
          + " FROM c LEFT JOIN idempotency_keys ON idempotency_keys.idem_key = c.k"
          + " AND idempotency_keys.principal = c.p"
          + " AND idempotency_keys.idem_key = ANY($1::varchar[])";

  // The rows holding the keys, and whether each has expired (as good as absent). Only the keys
  // select rows: a condition on expires_at could lead a generic plan to its index (KeyedPlansIT).
  // A row of another principal's equal key may come back too; it answers nobody.
  static final String LOOKUP_ALL =
      "SELECT idem_key, principal, false AS claimed, expires_at < now() AS expired, "
          + IdempotencyStore.HOLDER_COLUMNS
          + " FROM idempotency_keys WHERE idem_key = ANY($1::varchar[])"
          + " AND principal = ANY($2::varchar[])";

  private final Pool pool;
  private final Kind kind;
  private final double lockSeconds;
  private final double ttlSeconds;
  private final int maxInFlight;
  private final int maxBatch;
  private final Deque<Pending> queue = new ArrayDeque<>();
  private int inFlight; // guarded by this

  KeyBatcher(
      Pool pool, Kind kind, double lockSeconds, double ttlSeconds, int maxInFlight, int maxBatch) {
    this.pool = pool;
    this.kind = kind;
    this.lockSeconds = lockSeconds;
    this.ttlSeconds = ttlSeconds;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /**
   * A claim's outcome: the key was free (absent or expired) and is now this request's, or it is
   * held, with the holding row when the statement's snapshot saw it (null when it did not). A
   * lookup's: the holding row, or null when the key is free.
   */
  Future<Outcome> submit(IdempotencyKey key, String operation, String fingerprint) {
    Pending pending =
        new Pending(key, operation, fingerprint, Vertx.currentContext(), Promise.promise());
    List<Pending> batch;
    synchronized (this) {
      queue.add(pending);
      batch = nextBatch();
    }
    if (batch != null) {
      send(batch);
    }
    return pending.promise.future();
  }

  /** The next statement's claims, or null when none may go now; call holding the lock. */
  private List<Pending> nextBatch() {
    if (inFlight >= maxInFlight || queue.isEmpty()) {
      return null;
    }
    List<Pending> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
    Set<IdempotencyKey> keys = new HashSet<>();
    for (Iterator<Pending> it = queue.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
      Pending next = it.next();
      if (keys.add(next.key)) {
        batch.add(next);
        it.remove();
      }
    }
    inFlight++;
    return batch;
  }

  private void send(List<Pending> batch) {
    String[] keys = new String[batch.size()];
    String[] principals = new String[batch.size()];
    String[] operations = new String[batch.size()];
    String[] fingerprints = new String[batch.size()];
    for (int i = 0; i < keys.length; i++) {
      Pending p = batch.get(i);
      keys[i] = p.key.value();
      principals[i] = p.key.principal();
      operations[i] = p.operation;
      fingerprints[i] = p.fingerprint;
    }
    Future<RowSet<Row>> sent;
    try {
      sent =
          kind == Kind.CLAIM
              ? pool.preparedQuery(CLAIM_ALL)
                  .execute(
                      Tuple.of(keys, principals, operations, fingerprints, lockSeconds, ttlSeconds))
              : pool.preparedQuery(LOOKUP_ALL)
                  .execute(Tuple.tuple().addValue(keys).addValue(principals));
    } catch (RuntimeException refused) {
      // A closed pool may refuse at once: answer, and free the slot for the next statement.
      sent = Future.failedFuture(refused);
    }
    sent.onComplete(
        result -> {
          Map<IdempotencyKey, Outcome> outcomes = new HashMap<>();
          if (result.succeeded()) {
            for (Row row : result.result()) {
              boolean claimed = row.getBoolean("claimed");
              boolean held = !claimed && row.getString("operation") != null;
              outcomes.put(
                  new IdempotencyKey(row.getString("principal"), row.getString("idem_key")),
                  new Outcome(claimed, held ? row : null));
            }
          }
          List<Pending> next;
          synchronized (this) {
            inFlight--;
            next = nextBatch();
          }
          if (next != null) {
            send(next);
          }
          for (Pending p : batch) {
            if (result.succeeded()) {
              p.answer(
                  Future.succeededFuture(outcomes.getOrDefault(p.key, new Outcome(false, null))));
            } else {
              p.answer(Future.failedFuture(result.cause()));
            }
          }
        });
  }

  /** The answer: claimed, or held by {@code holder} (null when unknown or, for a lookup, free). */
  record Outcome(boolean claimed, Row holder) {}

  private record Pending(
      IdempotencyKey key,
      String operation,
      String fingerprint,
      Context context,
      Promise<Outcome> promise) {

    void answer(Future<Outcome> outcome) {
      if (context == null || context == Vertx.currentContext()) {
        promise.handle(outcome);
      } else {
        context.runOnContext(v -> promise.handle(outcome));
      }
    }
  }
}
