package io.slotkeeper.api.http.orders;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.orders.OrderOperations;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code /v1/orders}: place, read, cancel and process orders ({@link OrderOperations}). */
public final class OrderRoutes {

  private final OrderOperations orders;

  public OrderRoutes(OrderOperations orders) {
    this.orders = orders;
  }

  public void mount(Router router, BearerAuth auth) {
    router.post("/v1/orders").handler(auth.require(Role.CLIENT)).handler(this::place);
    router.get("/v1/orders/:orderId").handler(auth.require(Role.CLIENT)).handler(this::get);
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
    HttpAnswers.send(ctx, orders.place(HttpAnswers.idempotencyKey(ctx), JsonBodies.object(ctx)));
  }

  private void cancel(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        orders.cancel(
            HttpAnswers.idempotencyKey(ctx),
            ctx.pathParam("orderId"),
            JsonBodies.optionalObject(ctx)));
  }

  private void get(RoutingContext ctx) {
    HttpAnswers.json(ctx, orders.get(ctx.pathParam("orderId")));
  }
}
