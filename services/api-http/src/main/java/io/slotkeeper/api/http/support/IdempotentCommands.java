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
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotency-Key semantics for every mutating route (the IETF draft and Stripe's behaviour):
 * missing or malformed key 400; same key and same request replays the saved response with {@code
 * Idempotent-Replayed: true}; same key with another request 422; while the first request runs 409.
 * Requests that fail validation are not saved (nothing began); once execution began, its answer is
 * saved, errors included, except 5xx, which release the key so a retry can run.
 */
public final class IdempotentCommands {

  private static final Logger log = LoggerFactory.getLogger(IdempotentCommands.class);
  public static final String HEADER = "Idempotency-Key";

  private final IdempotencyStore store;
  private final SlotkeeperMetrics metrics;

  public IdempotentCommands(IdempotencyStore store, SlotkeeperMetrics metrics) {
    this.store = store;
    this.metrics = metrics;
  }

  /** The request's key, validated (throws a 400 problem). */
  public static String requireKey(RoutingContext ctx) {
    String key = ctx.request().getHeader(HEADER);
    String problem = IdempotencyKeys.problemWith(key);
    if (problem != null) {
      throw ApiProblem.badRequest(problem);
    }
    return key;
  }

  /**
   * Runs {@code execute} at most once per key and answers the request. {@code request} is the
   * validated request (path parameters and body) that identifies it for the fingerprint.
   */
  public void run(
      RoutingContext ctx,
      String operation,
      String key,
      JsonObject request,
      Function<String, Future<ApiResponse>> execute) {
    String fingerprint = RequestFingerprint.of(operation, request);
    store
        .claim(key, operation, fingerprint)
        .onFailure(e -> Problems.send(ctx, Problems.from(e)))
        .onSuccess(
            claim -> {
              if (claim instanceof Claim.Replay) {
                count(operation, "replayed");
                replay(ctx, ((Claim.Replay) claim).response());
              } else if (claim instanceof Claim.InFlight) {
                count(operation, "conflict");
                Problems.send(
                    ctx,
                    new ApiProblem(
                        409,
                        "Request in flight",
                        "the first request with this Idempotency-Key is still being processed; retry later"));
              } else if (claim instanceof Claim.Mismatch) {
                count(operation, "mismatch");
                Problems.send(
                    ctx,
                    new ApiProblem(
                        422,
                        "Idempotency-Key reused",
                        "this Idempotency-Key was used for a different request ("
                            + ((Claim.Mismatch) claim).firstOperation()
                            + " or another body)"));
              } else {
                count(operation, "new");
                executeAndSave(ctx, key, execute);
              }
            });
  }

  private void executeAndSave(
      RoutingContext ctx, String key, Function<String, Future<ApiResponse>> execute) {
    Future<ApiResponse> result;
    try {
      result = execute.apply(key);
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result
        .recover(
            failure -> {
              ApiProblem p = Problems.from(failure);
              if (p.status() >= 500) {
                return store.release(key).transform(ignored -> Future.failedFuture(p));
              }
              return Future.succeededFuture(
                  new ApiResponse(
                      p.status(),
                      Problems.body(p, ctx.request().path()),
                      java.util.Map.of("Content-Type", Problems.CONTENT_TYPE)));
            })
        .compose(
            response -> {
              java.util.Map<String, String> headers = new java.util.HashMap<>(response.headers());
              headers.putIfAbsent("Content-Type", "application/json");
              StoredResponse saved =
                  new StoredResponse(response.status(), headers, response.body().encode());
              return store.complete(key, saved).map(saved);
            })
        .onSuccess(saved -> write(ctx, saved, false))
        .onFailure(
            e -> {
              log.warn("request with Idempotency-Key failed: {}", e.getMessage());
              Problems.send(ctx, Problems.from(e));
            });
  }

  private static void replay(RoutingContext ctx, StoredResponse saved) {
    write(ctx, saved, true);
  }

  private static void write(RoutingContext ctx, StoredResponse saved, boolean replayed) {
    if (ctx.response().ended()) {
      return;
    }
    saved.headers().forEach((k, v) -> ctx.response().putHeader(k, v));
    if (replayed) {
      ctx.response().putHeader("Idempotent-Replayed", "true");
    }
    ctx.response().setStatusCode(saved.status()).end(saved.body());
  }

  private void count(String operation, String result) {
    metrics.idempotencyRequest(operation, result);
  }
}
