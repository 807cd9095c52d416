package io.slotkeeper.api.http.support;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.problem.HttpProblems;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.Outcome;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Writes the answers of the operation layer as HTTP responses; failures as problem+json. */
public final class HttpAnswers {

  private HttpAnswers() {}

  /**
   * The request's {@code Idempotency-Key} header as sent (the operation validates it), within the
   * principal of the caller that {@link BearerAuth} let through.
   */
  public static IdempotencyKey idempotencyKey(RoutingContext ctx) {
    Role caller = ctx.get(BearerAuth.ROLE_KEY);
    return new IdempotencyKey(caller.principal(), ctx.request().getHeader(KeyedAnswers.HEADER));
  }

  /** Answers with the saved (or replayed) response of an idempotent command. */
  public static void send(RoutingContext ctx, Future<Outcome> outcome) {
    outcome
        .onSuccess(o -> write(ctx, o.response(), o.replayed()))
        .onFailure(e -> HttpProblems.send(ctx, HttpProblems.from(e)));
  }

  /** Answers 200 with the JSON, or the failure's problem. */
  public static void json(RoutingContext ctx, Future<JsonObject> body) {
    body.onSuccess(ctx::json).onFailure(e -> HttpProblems.send(ctx, HttpProblems.from(e)));
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
}
