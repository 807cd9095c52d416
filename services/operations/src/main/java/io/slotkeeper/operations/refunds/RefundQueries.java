package io.slotkeeper.operations.refunds;

import io.slotkeeper.operations.support.Reads;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.Optional;

/** Reads of the refunds read table. */
public final class RefundQueries {

  private static final String COLUMNS =
      "SELECT refund_id, order_id, amount_cents, reason, status, requested_at, issued_at,"
          + " rejected_at, updated_at FROM refunds ";
  private static final String BY_ID = COLUMNS + "WHERE refund_id = $1";
  private static final String BY_ORDER =
      COLUMNS + "WHERE order_id = $1 ORDER BY requested_at, refund_id";

  private final Pool pool;

  public RefundQueries(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<JsonObject>> byId(String refundId) {
    return pool.preparedQuery(BY_ID)
        .execute(Tuple.of(refundId))
        .map(rows -> Reads.first(rows, RefundQueries::json));
  }

  public Future<JsonArray> byOrder(String orderId) {
    return pool.preparedQuery(BY_ORDER)
        .execute(Tuple.of(orderId))
        .map(
            rows -> {
              JsonArray out = new JsonArray();
              rows.forEach(r -> out.add(json(r)));
              return out;
            });
  }

  private static JsonObject json(Row r) {
    return new JsonObject()
        .put("refundId", r.getString("refund_id"))
        .put("orderId", r.getString("order_id"))
        .put("amountCents", r.getLong("amount_cents"))
        .put("reason", r.getString("reason"))
        .put("status", r.getString("status"))
        .put("requestedAt", Reads.instant(r.getOffsetDateTime("requested_at")))
        .put("issuedAt", Reads.instant(r.getOffsetDateTime("issued_at")))
        .put("rejectedAt", Reads.instant(r.getOffsetDateTime("rejected_at")))
        .put("updatedAt", Reads.instant(r.getOffsetDateTime("updated_at")));
  }
}
