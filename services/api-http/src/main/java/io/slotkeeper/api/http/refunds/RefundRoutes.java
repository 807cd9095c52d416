package io.slotkeeper.api.http.refunds;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.ReadYourWrites;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.refunds.RefundOperations;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Refunds: requested by clients against COMPLETED orders, issued by operators. */
public final class RefundRoutes {

  static final String KIND = "refund";

  private final RefundOperations refunds;
  private final ReadYourWrites fresh;

  public RefundRoutes(RefundOperations refunds, ReadYourWrites fresh) {
    this.refunds = refunds;
    this.fresh = fresh;
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
        .handler(ctx -> HttpAnswers.json(ctx, fresh.read(ctx, KIND, "refundId", refunds::get)));
    router
        .post("/v1/refunds/:refundId/issue")
        .handler(auth.require(Role.OPERATOR))
        .handler(this::issue);
  }

  private void request(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        fresh.remember(
            refunds.request(
                HttpAnswers.idempotencyKey(ctx), ctx.pathParam("orderId"), JsonBodies.object(ctx)),
            KIND,
            "refundId",
            false));
  }

  private void issue(RoutingContext ctx) {
    String refundId = ctx.pathParam("refundId");
    // Issuing reads the refund's order from the read table: a refund just requested here must be
    // there first. A read after the issue waits for its status (refund rows have no version).
    HttpAnswers.send(
        ctx,
        fresh.remember(
            fresh
                .awaitWritten(KIND, refundId, () -> refunds.get(refundId))
                .compose(
                    v ->
                        refunds.issue(
                            HttpAnswers.idempotencyKey(ctx),
                            refundId,
                            JsonBodies.optionalObject(ctx))),
            KIND,
            "refundId",
            true));
  }
}
