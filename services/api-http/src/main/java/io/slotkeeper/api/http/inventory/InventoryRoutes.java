package io.slotkeeper.api.http.inventory;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code /v1/inventory/{sku}}: receive stock, read the level and its change log. */
public final class InventoryRoutes {

  private final InventoryOperations inventory;

  public InventoryRoutes(InventoryOperations inventory) {
    this.inventory = inventory;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .post("/v1/inventory/:sku/receipts")
        .handler(auth.require(Role.CLIENT))
        .handler(this::receive);
    router.get("/v1/inventory/:sku").handler(auth.require(Role.CLIENT)).handler(this::get);
    router.get("/v1/inventory/:sku/log").handler(auth.require(Role.CLIENT)).handler(this::log);
  }

  private void receive(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        inventory.receive(
            HttpAnswers.idempotencyKey(ctx), ctx.pathParam("sku"), JsonBodies.object(ctx)));
  }

  private void get(RoutingContext ctx) {
    HttpAnswers.json(ctx, inventory.get(ctx.pathParam("sku")));
  }

  private void log(RoutingContext ctx) {
    int limit =
        QueryParams.intParam(
            ctx,
            "limit",
            InventoryOperations.DEFAULT_LOG_LIMIT,
            1,
            InventoryOperations.MAX_LOG_LIMIT);
    HttpAnswers.json(ctx, inventory.log(ctx.pathParam("sku"), limit));
  }
}
