package io.slotkeeper.api.http.support;

import io.slotkeeper.api.http.problem.ApiProblem;
import io.slotkeeper.api.http.problem.Problems;
import io.slotkeeper.idempotency.Claim;
import io.slotkeeper.idempotency.IdempotencyKeys;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.idempotency.RequestFingerprint;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotency-Key semantics for every mutating operation, whatever the protocol (the IETF draft and
 * Stripe's behaviour): missing or malformed key 400; same key and same request replays the saved
 * response; same key with another request 422; while the first request runs 409 ({@link
 * #IN_FLIGHT}). Requests that fail validation are not saved (nothing began); once execution began,
 * its answer is saved, errors included, except 5xx, which release the key so a retry can run.
 *
 * <p>Protocol-free: the answer is the saved HTTP-shaped response (status, headers, JSON body),
 * written by {@link HttpAnswers} for HTTP and mapped to a message or a status by the gRPC API. HTTP
 * and gRPC build the same operation name and request JSON, so a key used over one protocol replays
 * over the other.
 */
public final class IdempotentCommands {

  private static final Logger log = LoggerFactory.getLogger(IdempotentCommands.class);
  public static final String HEADER = "Idempotency-Key";

  /** The title of the 409 answered while the key's first request still runs. */
  public static final String IN_FLIGHT = "Request in flight";

  /** The saved response of the key's request, and whether this answer is a replay of it. */
  public record Outcome(StoredResponse response, boolean replayed) {

    /** The saved JSON body. */
    public JsonObject body() {
      return new JsonObject(response.body());
    }
  }

  private final IdempotencyStore store;
  private final SlotkeeperMetrics metrics;

  public IdempotentCommands(IdempotencyStore store, SlotkeeperMetrics metrics) {
    this.store = store;
    this.metrics = metrics;
  }

  /** The key, validated (throws a 400 problem). */
  public static String requireKey(String key) {
    String problem = IdempotencyKeys.problemWith(key);
    if (problem != null) {
      throw ApiProblem.badRequest(problem);
    }
    return key;
  }

  /**
   * Runs {@code execute} at most once per key. {@code request} is the validated request (path
   * parameters and body) that identifies it for the fingerprint; {@code instance} is the resource
   * path named in saved problems. Fails (with an {@link ApiProblem} or a failure {@link
   * Problems#from} maps) when nothing is saved: in flight, mismatch, storage down, 5xx.
   */
  public Future<Outcome> run(
      String operation,
      String key,
      JsonObject request,
      String instance,
      Function<String, Future<ApiResponse>> execute) {
    String fingerprint = RequestFingerprint.of(operation, request);
    return store
        .claim(key, operation, fingerprint)
        .compose(
            claim -> {
              if (claim instanceof Claim.Replay) {
                count(operation, "replayed");
                return Future.succeededFuture(new Outcome(((Claim.Replay) claim).response(), true));
              } else if (claim instanceof Claim.InFlight) {
                count(operation, "conflict");
                return Future.failedFuture(
                    new ApiProblem(
                        409,
                        IN_FLIGHT,
                        "the first request with this Idempotency-Key is still being processed; retry later"));
              } else if (claim instanceof Claim.Mismatch) {
                count(operation, "mismatch");
                return Future.failedFuture(
                    new ApiProblem(
                        422,
                        "Idempotency-Key reused",
                        "this Idempotency-Key was used for a different request ("
                            + ((Claim.Mismatch) claim).firstOperation()
                            + " or another body)"));
              }
              count(operation, "new");
              return executeAndSave(key, instance, execute);
            });
  }

  private Future<Outcome> executeAndSave(
      String key, String instance, Function<String, Future<ApiResponse>> execute) {
    Future<ApiResponse> result;
    try {
      result = execute.apply(key);
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    return result
        .recover(
            failure -> {
              ApiProblem p = Problems.from(failure);
              if (p.status() >= 500) {
                return store.release(key).transform(ignored -> Future.failedFuture(p));
              }
              return Future.succeededFuture(
                  new ApiResponse(
                      p.status(),
                      Problems.body(p, instance),
                      Map.of("Content-Type", Problems.CONTENT_TYPE)));
            })
        .compose(
            response -> {
              Map<String, String> headers = new HashMap<>(response.headers());
              headers.putIfAbsent("Content-Type", "application/json");
              StoredResponse saved =
                  new StoredResponse(response.status(), headers, response.body().encode());
              return store.complete(key, saved).map(new Outcome(saved, false));
            })
        .onFailure(e -> log.warn("request with Idempotency-Key failed: {}", e.getMessage()));
  }

  private void count(String operation, String result) {
    metrics.idempotencyRequest(operation, result);
  }
}
