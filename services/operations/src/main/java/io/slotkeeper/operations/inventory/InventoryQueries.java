package io.slotkeeper.operations.inventory;

import io.slotkeeper.operations.support.Reads;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.Optional;

/** Reads of the inventory read tables. */
public final class InventoryQueries {

  private static final String BY_SKU =
      "SELECT sku, on_hand, reserved, available, version, updated_at FROM inventory WHERE sku = $1";
  private static final String LOG =
      "SELECT position, sku, delta_on_hand, delta_reserved, reason, order_id, slot, command_id,"
          + " created_at FROM inventory_log WHERE sku = $1 ORDER BY position DESC LIMIT $2";

  private final Pool pool;

  public InventoryQueries(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<JsonObject>> bySku(String sku) {
    return pool.preparedQuery(BY_SKU)
        .execute(Tuple.of(sku))
        .map(rows -> Reads.first(rows, InventoryQueries::stock));
  }

  /** The newest {@code limit} changes of a SKU. */
  public Future<JsonArray> log(String sku, int limit) {
    return pool.preparedQuery(LOG)
        .execute(Tuple.of(sku, limit))
        .map(
            rows -> {
              JsonArray out = new JsonArray();
              for (Row r : rows) {
                out.add(
                    new JsonObject()
                        .put("position", r.getLong("position"))
                        .put("sku", r.getString("sku"))
                        .put("deltaOnHand", r.getLong("delta_on_hand"))
                        .put("deltaReserved", r.getLong("delta_reserved"))
                        .put("reason", r.getString("reason"))
                        .put("orderId", r.getString("order_id"))
                        .put("slot", r.getString("slot"))
                        .put("commandId", r.getString("command_id"))
                        .put(
                            "createdAt", r.getOffsetDateTime("created_at").toInstant().toString()));
              }
              return out;
            });
  }

  private static JsonObject stock(Row r) {
    return new JsonObject()
        .put("sku", r.getString("sku"))
        .put("onHand", r.getLong("on_hand"))
        .put("reserved", r.getLong("reserved"))
        .put("available", r.getLong("available"))
        .put("version", r.getLong("version"))
        .put("updatedAt", r.getOffsetDateTime("updated_at").toInstant().toString());
  }
}
