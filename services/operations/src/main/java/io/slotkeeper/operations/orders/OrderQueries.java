package io.slotkeeper.operations.orders;

import io.slotkeeper.operations.support.Reads;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.Optional;

/** Reads of the orders read table, through the non-blocking PostgreSQL client. */
public final class OrderQueries {

  private static final String BY_ID =
      "SELECT order_id, customer_id, amount_cents, currency, items::text, status, status_reason,"
          + " version, created_at, updated_at FROM orders WHERE order_id = $1";

  private final Pool pool;

  public OrderQueries(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<JsonObject>> byId(String orderId) {
    return pool.preparedQuery(BY_ID)
        .execute(Tuple.of(orderId))
        .map(rows -> Reads.first(rows, OrderQueries::toJson));
  }

  private static JsonObject toJson(Row row) {
    return new JsonObject()
        .put("orderId", row.getString("order_id"))
        .put("customerId", row.getString("customer_id"))
        .put("amountCents", row.getLong("amount_cents"))
        .put("currency", row.getString("currency"))
        .put("items", new JsonArray(row.getString("items")))
        .put("status", row.getString("status"))
        .put("statusReason", row.getString("status_reason"))
        .put("version", row.getLong("version"))
        .put("createdAt", row.getOffsetDateTime("created_at").toInstant().toString())
        .put("updatedAt", row.getOffsetDateTime("updated_at").toInstant().toString());
  }
}
