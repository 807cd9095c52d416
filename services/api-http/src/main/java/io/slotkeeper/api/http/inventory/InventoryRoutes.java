package io.slotkeeper.api.http.inventory;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.api.http.support.ReadYourWrites;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code /v1/inventory/{sku}}: receive stock, read the level and its change log. */
public final class InventoryRoutes {

  static final String KIND = "SKU";

  private final InventoryOperations inventory;
  private final ReadYourWrites fresh;

  public InventoryRoutes(InventoryOperations inventory, ReadYourWrites fresh) {
    this.inventory = inventory;
    this.fresh = fresh;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .post("/v1/inventory/:sku/receipts")
        .handler(auth.require(Role.CLIENT))
        .handler(this::receive);
    router
        .get("/v1/inventory/:sku")
        .handler(auth.require(Role.CLIENT))
        .handler(ctx -> HttpAnswers.json(ctx, fresh.read(ctx, KIND, "sku", inventory::get)));
    router.get("/v1/inventory/:sku/log").handler(auth.require(Role.CLIENT)).handler(this::log);
  }

  private void receive(RoutingContext ctx) {
    HttpAnswers.send(
        ctx,
        fresh.remember(
            inventory.receive(
                HttpAnswers.idempotencyKey(ctx), ctx.pathParam("sku"), JsonBodies.object(ctx)),
            KIND,
            "sku",
            false));
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
