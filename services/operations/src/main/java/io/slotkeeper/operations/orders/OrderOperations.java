package io.slotkeeper.operations.orders;

import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.business.orders.OrderRules;
import io.slotkeeper.business.orders.OrderSnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.operations.idempotency.ClaimedOperations;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.OneCommandOperations;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.PathIds;
import io.slotkeeper.operations.support.Reads;
import io.slotkeeper.operations.support.RequestFields;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Orders, protocol-free: validate the JSON request, run the command under the idempotency key and
 * answer HTTP-shaped. Used by the HTTP routes and the gRPC service alike, so both build the same
 * operation name and request JSON and share keys.
 */
public final class OrderOperations {

  public static final String PLACE = "orders.place";
  public static final String CANCEL = "orders.cancel";
  public static final String PROCESS = "orders.process";

  private final Vertx vertx;
  private final OneCommandOperations oneCommand;
  private final ClaimedOperations claimed;
  private final OrderQueries queries;
  private final OrderFulfilment fulfilment;

  public OrderOperations(
      Vertx vertx,
      OneCommandOperations oneCommand,
      ClaimedOperations claimed,
      OrderQueries queries,
      OrderFulfilment fulfilment) {
    this.vertx = vertx;
    this.oneCommand = oneCommand;
    this.claimed = claimed;
    this.queries = queries;
    this.fulfilment = fulfilment;
  }

  /** Places an order; {@code body} is the JSON of {@code POST /v1/orders}. */
  public Future<Outcome> place(IdempotencyKey key, JsonObject body) {
    KeyedAnswers.require(key);
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
    String id = orderId != null ? orderId : DeterministicIds.entityIdForKey("order", key.value());
    PlaceOrder cmd =
        new PlaceOrder(
            DeterministicIds.forIdempotencyKey(PLACE, key.value()),
            id,
            customerId,
            currency,
            lines);
    OrderRules.validate(cmd); // the aggregate checks again; this answers before a key is spent
    return oneCommand.<OrderSnapshot>command(
        PLACE,
        key,
        body,
        "/v1/orders",
        cmd,
        o -> ApiResponse.created(json(o), "/v1/orders/" + o.result().orderId()));
  }

  /** Cancels an order; {@code body} is the optional {@code {"reason": ...}}. */
  public Future<Outcome> cancel(IdempotencyKey key, String orderId, JsonObject body) {
    PathIds.require("orderId", orderId);
    KeyedAnswers.require(key);
    RequestFields f = RequestFields.of(body, Set.of("reason"));
    String reason = f.optionalString("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    CancelOrder cmd =
        new CancelOrder(
            DeterministicIds.forIdempotencyKey(CANCEL, key.value()),
            orderId,
            reason == null ? "cancelled by client" : reason);
    return oneCommand.<OrderSnapshot>command(
        CANCEL,
        key,
        new JsonObject().put("orderId", orderId).put("body", body),
        "/v1/orders/" + orderId + "/cancel",
        cmd,
        o -> ApiResponse.ok(json(o)));
  }

  /** Runs the fulfilment flow now; safe to repeat, every step has a derived command ID. */
  public Future<Outcome> process(IdempotencyKey key, String orderId, JsonObject body) {
    PathIds.require("orderId", orderId);
    KeyedAnswers.require(key);
    RequestFields.of(body, Set.of()).throwIfInvalid();
    return claimed.run(
        PROCESS,
        key,
        new JsonObject().put("orderId", orderId),
        "/v1/orders/" + orderId + "/process",
        k ->
            Future.fromCompletionStage(fulfilment.process(orderId), vertx.getOrCreateContext())
                .map(
                    r ->
                        ApiResponse.ok(
                            new JsonObject()
                                .put("orderId", r.orderId())
                                .put("status", r.status().name())
                                .put("reason", r.reason()))));
  }

  /** The order from the read model; a 404 problem when unknown. */
  public Future<JsonObject> get(String orderId) {
    PathIds.require("orderId", orderId);
    return Reads.found(queries.byId(orderId), "order " + orderId + " is unknown");
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
