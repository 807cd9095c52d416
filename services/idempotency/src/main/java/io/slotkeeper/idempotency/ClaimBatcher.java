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
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Claims of concurrent requests' keys in shared statements: each claim was a round trip and a
 * transaction of its own, which on a busy 2-core machine cost PostgreSQL more CPU than the
 * request's command. Natural batching, like the write side's command batcher: a claim goes at once
 * while fewer than {@code maxInFlight} statements are on their way, otherwise it waits and the next
 * statement takes up to {@code maxBatch} waiting claims. A key appears at most once per statement
 * (PostgreSQL refuses to update one row twice in an INSERT ... ON CONFLICT); its second claim goes
 * in the next one. Each claim is answered on the context that asked.
 */
final class ClaimBatcher {

  // The claim of IdempotencyStore for many keys: inserted (or expired and replaced) keys return.
  private static final String CLAIM_ALL =
      "INSERT INTO idempotency_keys (idem_key, operation, fingerprint, state, locked_until,"
          + " expires_at)"
          + " SELECT k, o, f, 'IN_FLIGHT', now() + make_interval(secs => $4),"
          + " now() + make_interval(secs => $5)"
          + " FROM unnest($1::varchar[], $2::varchar[], $3::varchar[]) AS c(k, o, f)"
          + " ON CONFLICT (idem_key) DO UPDATE SET operation = EXCLUDED.operation,"
          + " fingerprint = EXCLUDED.fingerprint, state = 'IN_FLIGHT',"
          + " locked_until = EXCLUDED.locked_until, response_status = NULL,"
          + " response_headers = NULL, response_body = NULL, created_at = now(),"
          + " expires_at = EXCLUDED.expires_at"
          // An expired key is as good as absent.
          + " WHERE idempotency_keys.expires_at < now()"
          + " RETURNING idem_key";

  private final Pool pool;
  private final double lockSeconds;
  private final double ttlSeconds;
  private final int maxInFlight;
  private final int maxBatch;
  private final Deque<Pending> queue = new ArrayDeque<>();
  private int inFlight; // guarded by this

  ClaimBatcher(Pool pool, double lockSeconds, double ttlSeconds, int maxInFlight, int maxBatch) {
    this.pool = pool;
    this.lockSeconds = lockSeconds;
    this.ttlSeconds = ttlSeconds;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /** Whether the key was free (absent or expired) and is now claimed for this request. */
  Future<Boolean> claim(String key, String operation, String fingerprint) {
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
    Set<String> keys = new HashSet<>();
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
    String[] operations = new String[batch.size()];
    String[] fingerprints = new String[batch.size()];
    for (int i = 0; i < keys.length; i++) {
      Pending p = batch.get(i);
      keys[i] = p.key;
      operations[i] = p.operation;
      fingerprints[i] = p.fingerprint;
    }
    Future<RowSet<Row>> sent;
    try {
      sent =
          pool.preparedQuery(CLAIM_ALL)
              .execute(Tuple.of(keys, operations, fingerprints, lockSeconds, ttlSeconds));
    } catch (RuntimeException refused) {
      // A closed pool may refuse at once: answer, and free the slot for the next statement.
      sent = Future.failedFuture(refused);
    }
    sent.onComplete(
        result -> {
          Set<String> claimed = new HashSet<>();
          if (result.succeeded()) {
            for (Row row : result.result()) {
              claimed.add(row.getString(0));
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
              p.answer(Future.succeededFuture(claimed.contains(p.key)));
            } else {
              p.answer(Future.failedFuture(result.cause()));
            }
          }
        });
  }

  private record Pending(
      String key, String operation, String fingerprint, Context context, Promise<Boolean> promise) {

    void answer(Future<Boolean> outcome) {
      if (context == null || context == Vertx.currentContext()) {
        promise.handle(outcome);
      } else {
        context.runOnContext(v -> promise.handle(outcome));
      }
    }
  }
}
