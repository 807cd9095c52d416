package io.slotkeeper.operations.schedules;

import io.slotkeeper.operations.support.Reads;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.Optional;

/** Reads of the {@code schedules} read table. */
public final class ScheduleQueries {

  private static final String COLUMNS =
      "SELECT name, definition::text AS definition, version, state, managed_by, source,"
          + " effective_at, created_at, updated_at FROM schedules ";
  private static final String BY_NAME = COLUMNS + "WHERE name = $1";
  // Without a state filter, the live schedules (deleted ones only when asked for).
  private static final String PAGE =
      COLUMNS
          + "WHERE (CASE WHEN $1::text IS NULL THEN state <> 'DELETED' ELSE state = $1 END)"
          + " AND name > $2 ORDER BY name LIMIT $3";

  private final Pool pool;

  public ScheduleQueries(Pool pool) {
    this.pool = pool;
  }

  /** The schedule's row, deleted ones included. */
  public Future<Optional<JsonObject>> byName(String name) {
    return pool.preparedQuery(BY_NAME)
        .execute(Tuple.of(name))
        .map(rows -> Reads.first(rows, ScheduleQueries::json));
  }

  /** Up to {@code limit} schedules named after {@code after}, by name. */
  public Future<JsonArray> page(String state, String after, int limit) {
    return pool.preparedQuery(PAGE)
        .execute(Tuple.of(state, after == null ? "" : after, limit))
        .map(
            rows -> {
              JsonArray out = new JsonArray();
              rows.forEach(r -> out.add(json(r)));
              return out;
            });
  }

  static JsonObject json(Row r) {
    return new JsonObject()
        .put("name", r.getString("name"))
        .put("definition", new JsonObject(r.getString("definition")))
        .put("version", r.getLong("version"))
        .put("state", r.getString("state"))
        .put("managedBy", r.getString("managed_by"))
        .put("source", r.getString("source"))
        .put("effectiveAt", Reads.instant(r.getOffsetDateTime("effective_at")))
        .put("createdAt", Reads.instant(r.getOffsetDateTime("created_at")))
        .put("updatedAt", Reads.instant(r.getOffsetDateTime("updated_at")));
  }
}
