package io.slotkeeper.api.http.orders;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.auth.Role;
import io.slotkeeper.api.http.support.ApiResponse;
import io.slotkeeper.api.http.support.CommandBridge;
import io.slotkeeper.api.http.support.IdempotentCommands;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.PathIds;
import io.slotkeeper.api.http.support.Reads;
import io.slotkeeper.api.http.support.RequestFields;
import io.slotkeeper.domain.command.CommandOutcome;
import io.slotkeeper.domain.fulfilment.OrderFulfilment;
import io.slotkeeper.domain.orders.OrderRules;
import io.slotkeeper.domain.orders.OrderSnapshot;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code /v1/orders}: place, read and cancel orders. */
public final class OrderRoutes {

  static final String PLACE = "orders.place";
  static final String CANCEL = "orders.cancel";
  static final String PROCESS = "orders.process";

  private final CommandBridge commands;
  private final IdempotentCommands idempotent;
  private final OrderQueries queries;
  private final OrderFulfilment fulfilment;

  public OrderRoutes(
      CommandBridge commands,
      IdempotentCommands idempotent,
      OrderQueries queries,
      OrderFulfilment fulfilment) {
    this.commands = commands;
    this.idempotent = idempotent;
    this.queries = queries;
    this.fulfilment = fulfilment;
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

  /** Runs the fulfilment flow now; safe to repeat, every step has a derived command ID. */
  private void process(RoutingContext ctx) {
    String orderId = PathIds.require(ctx, "orderId");
    String key = IdempotentCommands.requireKey(ctx);
    RequestFields.of(JsonBodies.optionalObject(ctx), Set.of()).throwIfInvalid();
    idempotent.run(
        ctx,
        PROCESS,
        key,
        new JsonObject().put("orderId", orderId),
        k ->
            Future.fromCompletionStage(
                    fulfilment.process(orderId), ctx.vertx().getOrCreateContext())
                .map(
                    r ->
                        ApiResponse.ok(
                            new JsonObject()
                                .put("orderId", r.orderId())
                                .put("status", r.status().name())
                                .put("reason", r.reason()))));
  }

  private void place(RoutingContext ctx) {
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.object(ctx);
    RequestFields f = RequestFields.of(body, Set.of("orderId", "customerId", "currency", "items"));
    String orderId = f.optionalString("orderId", PathIds.MAX_LENGTH);
    String customerId = f.string("customerId", PathIds.MAX_LENGTH);
    String currency = f.string("currency", 3);
    JsonArray items = f.array("items", OrderRules.MAX_LINES);
    List<OrderLine> lines = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.getValue(i);
      if (!(item instanceof JsonObject)) {
        f.reject("items[" + i + "]", "must be an object");
        continue;
      }
      RequestFields line =
          f.nested((JsonObject) item, "items[" + i + "]", Set.of("sku", "qty", "unitPriceCents"));
      lines.add(
          new OrderLine(
              line.string("sku", PathIds.MAX_LENGTH),
              (int) line.number("qty", 1, OrderRules.MAX_QTY),
              line.number("unitPriceCents", 0, OrderRules.MAX_UNIT_PRICE_CENTS)));
    }
    f.throwIfInvalid();
    String id = orderId != null ? orderId : DeterministicIds.entityIdForKey("order", key);
    PlaceOrder cmd =
        new PlaceOrder(
            DeterministicIds.forIdempotencyKey(PLACE, key), id, customerId, currency, lines);
    OrderRules.validate(cmd); // the aggregate checks again; this answers before a key is spent
    idempotent.run(
        ctx,
        PLACE,
        key,
        body,
        k ->
            commands
                .<OrderSnapshot>send(cmd)
                .map(o -> ApiResponse.created(json(o), "/v1/orders/" + o.result().orderId())));
  }

  private void cancel(RoutingContext ctx) {
    String orderId = PathIds.require(ctx, "orderId");
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.optionalObject(ctx);
    RequestFields f = RequestFields.of(body, Set.of("reason"));
    String reason = f.optionalString("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    CancelOrder cmd =
        new CancelOrder(
            DeterministicIds.forIdempotencyKey(CANCEL, key),
            orderId,
            reason == null ? "cancelled by client" : reason);
    idempotent.run(
        ctx,
        CANCEL,
        key,
        new JsonObject().put("orderId", orderId).put("body", body),
        k -> commands.<OrderSnapshot>send(cmd).map(o -> ApiResponse.ok(json(o))));
  }

  private void get(RoutingContext ctx) {
    String orderId = PathIds.require(ctx, "orderId");
    Reads.respond(ctx, queries.byId(orderId), "order " + orderId + " is unknown");
  }

  static JsonObject json(CommandOutcome<OrderSnapshot> outcome) {
    OrderSnapshot s = outcome.result();
    return new JsonObject()
        .put("orderId", s.orderId())
        .put("status", s.status().name())
        .put("amountCents", s.amountCents())
        .put("version", s.version());
  }
}
