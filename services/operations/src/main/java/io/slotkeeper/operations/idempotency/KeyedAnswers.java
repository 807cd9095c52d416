package io.slotkeeper.operations.idempotency;

import io.slotkeeper.idempotency.Claim;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.IdempotencyKeys;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.problem.Problems;
import io.slotkeeper.operations.support.ApiResponse;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Idempotency-Key semantics for every mutating operation, whatever the protocol (the IETF draft and
 * Stripe's behaviour): missing or malformed key 400; same key and same request replays the saved
 * response; same key with another request 422; 409 ({@link #IN_FLIGHT}) while the key's first
 * request runs. Requests that fail validation are not saved (nothing began); once execution began,
 * its answer is saved, errors included, except a 404 (it changed nothing) and a 5xx.
 *
 * <p>Two protocols hold a key: {@link OneCommandOperations} (an operation that is exactly one
 * command: the key's row is written with the command) and {@link ClaimedOperations} (any other: the
 * key is claimed first). This class is what they share: the key rule, the answer from a key's
 * holder, the saved form of an answer, and the cap on new keys per principal ({@link NewKeyLimit}):
 * beyond it a new key is 429 and nothing is stored or run, while a key already held still answers.
 *
 * <p>Protocol-free: the answer is the saved HTTP-shaped response (status, headers, JSON body),
 * written as an HTTP response by the HTTP API and mapped to a message or a status by the gRPC API.
 * HTTP and gRPC build the same operation name and request JSON, so a key used over one protocol
 * replays over the other.
 */
public final class KeyedAnswers {

  public static final String HEADER = "Idempotency-Key";

  /** The title of the 409 answered while the key's first request still runs. */
  public static final String IN_FLIGHT = "Request in flight";

  private final IdempotencyStore store;
  private final NewKeyLimit newKeys;
  private final SlotkeeperMetrics metrics;

  public KeyedAnswers(IdempotencyStore store, NewKeyLimit newKeys, SlotkeeperMetrics metrics) {
    this.store = store;
    this.newKeys = newKeys;
    this.metrics = metrics;
  }

  /** The key, validated (throws a 400 problem). */
  public static IdempotencyKey require(IdempotencyKey key) {
    String problem = IdempotencyKeys.problemWith(key.value());
    if (problem != null) {
      throw ApiProblem.badRequest(problem);
    }
    return key;
  }

  /**
   * Holds the key for a request ({@code hold}: a claim or a lookup) and runs {@code execute} when
   * it is this request's; else answers from its holder. A principal at its cap of new keys only
   * looks the key up: a held key still answers (a replay, 409, 422), a new one is 429 with nothing
   * stored or run.
   */
  Future<Outcome> admitted(
      IdempotencyKey key,
      String operation,
      String fingerprint,
      Supplier<Future<Claim>> hold,
      Supplier<Future<Outcome>> execute) {
    long retryAfter = newKeys.retryAfterSeconds(key.principal());
    if (retryAfter > 0) {
      return decided(
          operation,
          store.lookup(key, operation, fingerprint),
          () -> {
            count(operation, "limited", true);
            return Future.failedFuture(overLimit(retryAfter));
          },
          true,
          false);
    }
    return decided(
        operation,
        hold.get(),
        () -> {
          newKeys.record(key.principal());
          return execute.get();
        },
        true,
        true);
  }

  private ApiProblem overLimit(long retryAfterSeconds) {
    return new ApiProblem(
        429,
        "Too Many Requests",
        "this caller has stored its cap of "
            + newKeys.perHour()
            + " new Idempotency-Keys in the last hour; retry in "
            + retryAfterSeconds
            + " s, or replay a key already used",
        Map.of(),
        Map.of("Retry-After", String.valueOf(retryAfterSeconds)));
  }

  /**
   * Runs {@code execute} when the key is this request's (claimed, or free after a lookup); else
   * answers from its holder: a replay, 409 while it runs, 422 for another request. {@code tally}
   * false for a request already counted (asking its key again).
   */
  Future<Outcome> decided(
      String operation, Future<Claim> claim, Supplier<Future<Outcome>> execute, boolean tally) {
    return decided(operation, claim, execute, tally, tally);
  }

  /** {@link #decided}; {@code tallyNew} false when {@code execute} counts the request itself. */
  private Future<Outcome> decided(
      String operation,
      Future<Claim> claim,
      Supplier<Future<Outcome>> execute,
      boolean tally,
      boolean tallyNew) {
    return claim.compose(
        c -> {
          if (c instanceof Claim.Replay) {
            count(operation, "replayed", tally);
            return Future.succeededFuture(new Outcome(((Claim.Replay) c).response(), true));
          } else if (c instanceof Claim.InFlight) {
            count(operation, "conflict", tally);
            return Future.failedFuture(inFlight());
          } else if (c instanceof Claim.Mismatch) {
            count(operation, "mismatch", tally);
            return Future.failedFuture(
                new ApiProblem(
                    422,
                    "Idempotency-Key reused",
                    "this Idempotency-Key was used for a different request ("
                        + ((Claim.Mismatch) c).firstOperation()
                        + " or another body)"));
          }
          count(operation, "new", tallyNew);
          return execute.get();
        });
  }

  static ApiProblem inFlight() {
    return new ApiProblem(
        409,
        IN_FLIGHT,
        "the first request with this Idempotency-Key is still being processed; retry later");
  }

  /** A response, and whether it was saved with its command already. */
  record Answer(StoredResponse response, boolean saved) {

    /**
     * A 404 (no such order, refund, job) changed nothing and is not saved: saving it let any client
     * grow the key table as fast as it sent, each with a commit, and a retry after the thing exists
     * should act on it.
     */
    boolean changedNothing() {
      return !saved && response.status() == 404;
    }
  }

  /** A 4xx problem as the answer to save; a 5xx goes to {@code serverError} (fails the request). */
  static Future<Answer> problemAnswer(
      Throwable failure, String instance, Function<ApiProblem, Future<Answer>> serverError) {
    ApiProblem p = Problems.from(failure);
    if (p.status() >= 500) {
      return serverError.apply(p);
    }
    return Future.succeededFuture(
        new Answer(
            stored(
                new ApiResponse(
                    p.status(),
                    Problems.body(p, instance),
                    Map.of("Content-Type", Problems.CONTENT_TYPE))),
            false));
  }

  static StoredResponse stored(ApiResponse response) {
    Map<String, String> headers = new HashMap<>(response.headers());
    headers.putIfAbsent("Content-Type", "application/json");
    return new StoredResponse(response.status(), headers, response.body().encode());
  }

  private void count(String operation, String result, boolean tally) {
    if (tally) {
      metrics.idempotencyRequest(operation, result);
    }
  }
}
