package io.slotkeeper.api.http.orders;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.ReadYourWrites;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.orders.OrderOperations;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code /v1/orders}: place, read, cancel and process orders ({@link OrderOperations}). */
public final class OrderRoutes {

  static final String KIND = "order";

  private final OrderOperations orders;
  private final ReadYourWrites fresh;

  public OrderRoutes(OrderOperations orders, ReadYourWrites fresh) {
    this.orders = orders;
    this.fresh = fresh;
  }

  public void mount(Router router, BearerAuth auth) {
    router.post("/v1/orders").handler(auth.require(Role.CLIENT)).handler(this::place);
    router
        .get("/v1/orders/:orderId")
        .handler(auth.require(Role.CLIENT))
        .handler(ctx -> HttpAnswers.json(ctx, fresh.read(ctx, KIND, "orderId", orders::get)));
    router
        .post("/v1/orders/:orderId/cancel")
        .handler(auth.require(Role.CLIENT))
        .handler(this::cancel);
    router
        .post("/v1/orders/:orderId/process")
        .handler(auth.require(Role.OPERATOR))
        .handler(this::process);
  }

  private void process(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        orders.process(
            HttpAnswers.idempotencyKey(ctx),
            ctx.pathParam("orderId"),
            JsonBodies.optionalObject(ctx)));
  }

  private void place(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        fresh.remember(
            orders.place(HttpAnswers.idempotencyKey(ctx), JsonBodies.object(ctx)),
            KIND,
            "orderId",
            false));
  }

  private void cancel(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        fresh.remember(
            orders.cancel(
                HttpAnswers.idempotencyKey(ctx),
                ctx.pathParam("orderId"),
                JsonBodies.optionalObject(ctx)),
            KIND,
            "orderId",
            false));
  }
}
