package io.slotkeeper.api.http.refunds;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.auth.Role;
import io.slotkeeper.api.http.problem.ApiProblem;
import io.slotkeeper.api.http.problem.Problems;
import io.slotkeeper.api.http.support.ApiResponse;
import io.slotkeeper.api.http.support.CommandBridge;
import io.slotkeeper.api.http.support.IdempotentCommands;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.PathIds;
import io.slotkeeper.api.http.support.Reads;
import io.slotkeeper.api.http.support.RequestFields;
import io.slotkeeper.domain.command.CommandOutcome;
import io.slotkeeper.domain.orders.RefundSnapshot;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/** Refunds: requested by clients against COMPLETED orders, issued by operators. */
public final class RefundRoutes {

  static final String REQUEST = "refunds.request";
  static final String ISSUE = "refunds.issue";
  static final long MAX_AMOUNT = 1_000_000_000_000_000L;

  private final CommandBridge commands;
  private final IdempotentCommands idempotent;
  private final RefundQueries queries;

  public RefundRoutes(
      CommandBridge commands, IdempotentCommands idempotent, RefundQueries queries) {
    this.commands = commands;
    this.idempotent = idempotent;
    this.queries = queries;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .post("/v1/orders/:orderId/refunds")
        .handler(auth.require(Role.CLIENT))
        .handler(this::request);
    router
        .get("/v1/orders/:orderId/refunds")
        .handler(auth.require(Role.CLIENT))
        .handler(this::byOrder);
    router.get("/v1/refunds/:refundId").handler(auth.require(Role.CLIENT)).handler(this::get);
    router
        .post("/v1/refunds/:refundId/issue")
        .handler(auth.require(Role.OPERATOR))
        .handler(this::issue);
  }

  private void request(RoutingContext ctx) {
    String orderId = PathIds.require(ctx, "orderId");
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.object(ctx);
    RequestFields f = RequestFields.of(body, Set.of("amountCents", "reason"));
    long amount = f.number("amountCents", 1, MAX_AMOUNT);
    String reason = f.string("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    // The refund ID derives from the order and the caller's key: a retry is the same refund.
    RequestRefund cmd =
        new RequestRefund(
            DeterministicIds.forIdempotencyKey(REQUEST, key),
            orderId,
            DeterministicIds.refundId(orderId, key),
            amount,
            reason);
    idempotent.run(
        ctx,
        REQUEST,
        key,
        new JsonObject().put("orderId", orderId).put("body", body),
        k ->
            commands
                .<RefundSnapshot>send(cmd)
                .map(o -> ApiResponse.created(json(o), "/v1/refunds/" + o.result().refundId())));
  }

  private void issue(RoutingContext ctx) {
    String refundId = PathIds.require(ctx, "refundId");
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.optionalObject(ctx);
    RequestFields.of(body, Set.of()).throwIfInvalid();
    idempotent.run(
        ctx,
        ISSUE,
        key,
        new JsonObject().put("refundId", refundId),
        k ->
            orderOf(refundId)
                .compose(
                    orderId ->
                        commands.<RefundSnapshot>send(
                            // One issue per refund, whoever asks and however often.
                            new IssueRefund(
                                DeterministicIds.issueRefund(refundId), orderId, refundId)))
                .map(o -> ApiResponse.ok(json(o))));
  }

  private Future<String> orderOf(String refundId) {
    return queries
        .byId(refundId)
        .map(
            found ->
                found
                    .map(r -> r.getString("orderId"))
                    .orElseThrow(() -> ApiProblem.notFound("refund " + refundId + " is unknown")));
  }

  private void get(RoutingContext ctx) {
    String refundId = PathIds.require(ctx, "refundId");
    Reads.respond(ctx, queries.byId(refundId), "refund " + refundId + " is unknown");
  }

  private void byOrder(RoutingContext ctx) {
    String orderId = PathIds.require(ctx, "orderId");
    queries
        .byOrder(orderId)
        .onSuccess(list -> ctx.json(new JsonObject().put("orderId", orderId).put("refunds", list)))
        .onFailure(e -> Problems.send(ctx, Problems.from(e)));
  }

  static JsonObject json(CommandOutcome<RefundSnapshot> outcome) {
    RefundSnapshot s = outcome.result();
    return new JsonObject()
        .put("refundId", s.refundId())
        .put("orderId", s.orderId())
        .put("amountCents", s.amountCents())
        .put("status", s.status().name())
        .put("reason", s.reason())
        .put("refundableCents", s.refundableCents());
  }
}
