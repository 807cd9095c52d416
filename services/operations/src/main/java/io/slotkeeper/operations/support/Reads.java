package io.slotkeeper.operations.support;

import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.function.Function;

/** Shared shapes of the read side: one optional row, answered as 200 or a 404 problem. */
public final class Reads {

  private Reads() {}

  /** The first row mapped, if there is one. */
  public static <T> Optional<T> first(RowSet<Row> rows, Function<Row, T> mapper) {
    return rows.size() == 0 ? Optional.empty() : Optional.of(mapper.apply(rows.iterator().next()));
  }

  /** The found JSON, or a failure with a 404 problem saying {@code notFound}. */
  public static Future<JsonObject> found(Future<Optional<JsonObject>> lookup, String notFound) {
    return lookup.map(found -> found.orElseThrow(() -> ApiProblem.notFound(notFound)));
  }

  /** An optional timestamp as ISO-8601 text. */
  public static String instant(OffsetDateTime t) {
    return t == null ? null : t.toInstant().toString();
  }
}
