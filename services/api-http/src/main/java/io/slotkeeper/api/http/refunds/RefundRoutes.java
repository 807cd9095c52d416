package io.slotkeeper.api.http.refunds;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.refunds.RefundOperations;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Refunds: requested by clients against COMPLETED orders, issued by operators. */
public final class RefundRoutes {

  private final RefundOperations refunds;

  public RefundRoutes(RefundOperations refunds) {
    this.refunds = refunds;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .post("/v1/orders/:orderId/refunds")
        .handler(auth.require(Role.CLIENT))
        .handler(this::request);
    router
        .get("/v1/orders/:orderId/refunds")
        .handler(auth.require(Role.CLIENT))
        .handler(ctx -> HttpAnswers.json(ctx, refunds.byOrder(ctx.pathParam("orderId"))));
    router
        .get("/v1/refunds/:refundId")
        .handler(auth.require(Role.CLIENT))
        .handler(ctx -> HttpAnswers.json(ctx, refunds.get(ctx.pathParam("refundId"))));
    router
        .post("/v1/refunds/:refundId/issue")
        .handler(auth.require(Role.OPERATOR))
        .handler(this::issue);
  }

  private void request(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        refunds.request(
            HttpAnswers.idempotencyKey(ctx), ctx.pathParam("orderId"), JsonBodies.object(ctx)));
  }

  private void issue(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        refunds.issue(
            HttpAnswers.idempotencyKey(ctx),
            ctx.pathParam("refundId"),
            JsonBodies.optionalObject(ctx)));
  }
}
