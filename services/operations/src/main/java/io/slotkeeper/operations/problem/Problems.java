package io.slotkeeper.operations.problem;

import io.slotkeeper.commands.CommandRefused;
import io.slotkeeper.platform.db.DatabaseUnavailableException;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single mapping from failures to problems (status, title, detail), whatever the protocol: HTTP
 * writes them as problem+json, gRPC as a status. No stack trace ever leaves.
 */
public final class Problems {

  public static final String CONTENT_TYPE = "application/problem+json";
  private static final Logger log = LoggerFactory.getLogger(Problems.class);

  private Problems() {}

  /** Maps any failure to a problem; unexpected ones are logged and answered without detail. */
  public static ApiProblem from(Throwable failure) {
    Throwable t = failure;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof ApiProblem) {
      return (ApiProblem) t;
    }
    if (t instanceof CommandRefused) {
      return refused((CommandRefused) t);
    }
    if (t instanceof io.slotkeeper.stream.SubscriberLimitException) {
      return new ApiProblem(429, "Too Many Requests", t.getMessage());
    }
    if (t instanceof TimeoutException) {
      return new ApiProblem(
          503,
          "Timed out",
          "the command did not finish in time; retry with the same Idempotency-Key");
    }
    if (storageFault(t)) {
      log.warn("storage unavailable: {}", t.toString());
      return new ApiProblem(503, "Service Unavailable", "storage is unavailable; retry later");
    }
    log.error("unexpected failure", t);
    return new ApiProblem(500, "Internal Server Error", "an unexpected error occurred");
  }

  /** A refused command: its kind decides the status, its title and message the rest. */
  static ApiProblem refused(CommandRefused r) {
    return new ApiProblem(status(r.kind()), r.title(), r.getMessage(), r.fieldErrors());
  }

  private static int status(CommandRefused.Kind kind) {
    switch (kind) {
      case BAD_INPUT:
        return 400;
      case NOT_FOUND:
        return 404;
      case RULE_VIOLATED:
        return 422;
      case STALE_VERSION:
        return 412;
      default: // WRONG_STATE, CONFLICT
        return 409;
    }
  }

  /**
   * Whether PostgreSQL's error is one a retry can outlive: the connection (class 08), resources
   * (53), an operator or shutdown (57), a serialization failure or deadlock (40), a lock not
   * available (55P03). Anything else (a constraint, a missing table) is a fault a retry repeats: a
   * 500, not a "retry later".
   */
  /**
   * Whether the failure, or one of its causes, is PostgreSQL or Redis being unreachable or failing
   * for the moment (a refused, reset or closed connection, a transient SQLSTATE): the service's
   * storage, not the client's request and not a bug, so a 503 the client may retry.
   */
  static boolean storageFault(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = t.getCause(), depth++) {
      if (t instanceof DatabaseUnavailableException
          || t instanceof java.net.SocketException
          || t instanceof io.vertx.pgclient.PgException
              && isTransient(((io.vertx.pgclient.PgException) t).getSqlState())
          || t instanceof java.sql.SQLException
              && isTransient(((java.sql.SQLException) t).getSQLState())) {
        return true;
      }
    }
    return false;
  }

  static boolean isTransient(String sqlState) {
    if (sqlState == null || sqlState.length() != 5) {
      return false;
    }
    String sqlClass = sqlState.substring(0, 2);
    return sqlClass.equals("08")
        || sqlClass.equals("53")
        || sqlClass.equals("57")
        || sqlClass.equals("40")
        || sqlState.equals("55P03");
  }

  /** The problem's JSON body. */
  public static JsonObject body(ApiProblem p, String instance) {
    JsonObject body =
        new JsonObject()
            .put("type", "about:blank")
            .put("title", p.title())
            .put("status", p.status())
            .put("detail", p.detail());
    if (instance != null) {
      body.put("instance", instance);
    }
    if (!p.fields().isEmpty()) {
      body.put("errors", new JsonObject(new java.util.TreeMap<>(p.fields())));
    }
    return body;
  }
}
