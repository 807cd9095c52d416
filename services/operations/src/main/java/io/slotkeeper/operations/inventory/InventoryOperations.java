package io.slotkeeper.operations.inventory;

import io.slotkeeper.business.inventory.InventorySnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.OneCommandOperations;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.PathIds;
import io.slotkeeper.operations.support.Ranges;
import io.slotkeeper.operations.support.Reads;
import io.slotkeeper.operations.support.RequestFields;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/** Inventory, protocol-free (shared by HTTP and gRPC): receive stock, read level and log. */
public final class InventoryOperations {

  public static final String RECEIVE = "inventory.receive";
  static final int MAX_QTY = 1_000_000_000;
  public static final int DEFAULT_LOG_LIMIT = 50;
  public static final int MAX_LOG_LIMIT = 500;

  private final OneCommandOperations oneCommand;
  private final InventoryQueries queries;

  public InventoryOperations(OneCommandOperations oneCommand, InventoryQueries queries) {
    this.oneCommand = oneCommand;
    this.queries = queries;
  }

  /** Receives stock; {@code body} is {@code {"qty": n, "reason": ...}}. */
  public Future<Outcome> receive(IdempotencyKey key, String sku, JsonObject body) {
    PathIds.require("sku", sku);
    KeyedAnswers.require(key);
    RequestFields f = RequestFields.of(body, Set.of("qty", "reason"));
    long qty = f.number("qty", 1, MAX_QTY);
    String reason = f.optionalString("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    ReceiveStock cmd =
        new ReceiveStock(
            DeterministicIds.forIdempotencyKey(RECEIVE, key.value()),
            sku,
            (int) qty,
            reason == null ? "receipt" : reason);
    return oneCommand.<InventorySnapshot>command(
        RECEIVE,
        key,
        new JsonObject().put("sku", sku).put("body", body),
        "/v1/inventory/" + sku + "/receipts",
        cmd,
        o -> ApiResponse.ok(json(o)));
  }

  /** The SKU's level; a 404 problem when never seen. */
  public Future<JsonObject> get(String sku) {
    PathIds.require("sku", sku);
    return Reads.found(queries.bySku(sku), "SKU " + sku + " has never been seen");
  }

  /** The SKU's latest changes, newest first. */
  public Future<JsonObject> log(String sku, int limit) {
    PathIds.require("sku", sku);
    Ranges.inRange("limit", limit, 1, MAX_LOG_LIMIT);
    return queries
        .log(sku, limit)
        .map(entries -> new JsonObject().put("sku", sku).put("entries", entries));
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
