package io.slotkeeper.api.http.inventory;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.auth.Role;
import io.slotkeeper.api.http.problem.Problems;
import io.slotkeeper.api.http.support.ApiResponse;
import io.slotkeeper.api.http.support.CommandBridge;
import io.slotkeeper.api.http.support.IdempotentCommands;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.PathIds;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.api.http.support.Reads;
import io.slotkeeper.api.http.support.RequestFields;
import io.slotkeeper.domain.command.CommandOutcome;
import io.slotkeeper.domain.inventory.InventorySnapshot;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/** {@code /v1/inventory/{sku}}: receive stock, read the level and its change log. */
public final class InventoryRoutes {

  static final String RECEIVE = "inventory.receive";
  static final int MAX_QTY = 1_000_000_000;

  private final CommandBridge commands;
  private final IdempotentCommands idempotent;
  private final InventoryQueries queries;

  public InventoryRoutes(
      CommandBridge commands, IdempotentCommands idempotent, InventoryQueries queries) {
    this.commands = commands;
    this.idempotent = idempotent;
    this.queries = queries;
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
    String sku = PathIds.require(ctx, "sku");
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.object(ctx);
    RequestFields f = RequestFields.of(body, Set.of("qty", "reason"));
    long qty = f.number("qty", 1, MAX_QTY);
    String reason = f.optionalString("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    ReceiveStock cmd =
        new ReceiveStock(
            DeterministicIds.forIdempotencyKey(RECEIVE, key),
            sku,
            (int) qty,
            reason == null ? "receipt" : reason);
    idempotent.run(
        ctx,
        RECEIVE,
        key,
        new JsonObject().put("sku", sku).put("body", body),
        k -> commands.<InventorySnapshot>send(cmd).map(o -> ApiResponse.ok(json(o))));
  }

  private void get(RoutingContext ctx) {
    String sku = PathIds.require(ctx, "sku");
    Reads.respond(ctx, queries.bySku(sku), "SKU " + sku + " has never been seen");
  }

  private void log(RoutingContext ctx) {
    String sku = PathIds.require(ctx, "sku");
    int limit = QueryParams.intParam(ctx, "limit", 50, 1, 500);
    queries
        .log(sku, limit)
        .onSuccess(entries -> ctx.json(new JsonObject().put("sku", sku).put("entries", entries)))
        .onFailure(e -> Problems.send(ctx, Problems.from(e)));
  }

  static JsonObject json(CommandOutcome<InventorySnapshot> outcome) {
    InventorySnapshot s = outcome.result();
    return new JsonObject()
        .put("sku", s.sku())
        .put("onHand", s.onHand())
        .put("reserved", s.reserved())
        .put("available", s.available())
        .put("version", s.version());
  }
}
