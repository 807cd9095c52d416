package io.slotkeeper.commands.projection;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.slotkeeper.events.StorableText;
import io.slotkeeper.platform.axon.CommitQueues;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.json.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;

/**
 * JDBC helper of projections. Statements run on the processor's transaction (shared with its
 * token), so a batch's rows and its token commit together.
 *
 * <p>Row writes ({@link #write}) are queued on the processor's unit of work and sent when it
 * prepares to commit, as JDBC batches: a few round trips per batch of events instead of one or two
 * per event. The order of a table's writes is kept: consecutive writes of the same statement form
 * one JDBC batch; another statement, or a key already in the batch, starts the next (a rewritten
 * multi-row {@code INSERT … ON CONFLICT DO UPDATE} may not touch one row twice). Writes of
 * different tables are independent (no statement reads another table), so each table is flushed on
 * its own.
 */
public final class ProjectionSql {

  private final ConnectionProvider connections;
  private final EventPositions positions;
  // One resource per helper: each processor's unit of work gets its own queue.
  private final String resourceKey =
      ProjectionSql.class.getName() + "@" + System.identityHashCode(this);

  /** Helpers writing on {@code connections}, positions looked up through {@code positions}. */
  public ProjectionSql(ConnectionProvider connections, EventPositions positions) {
    this.connections = connections;
    this.positions = positions;
  }

  /** Runs an update now (e.g. a reset handler's delete); returns the row count. */
  public int update(String sql, Object... params) {
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new ProjectionException(sql, e);
    }
  }

  /**
   * Writes a row of {@code table} whose key is {@code key}: queued until the unit of work commits
   * (see above), or run now outside a unit of work.
   */
  public void write(String table, Object key, String sql, Object... params) {
    if (!CurrentUnitOfWork.isStarted()) {
      update(sql, params);
      return;
    }
    Writes writes = CommitQueues.current(resourceKey, Writes::new, Writes::flush);
    writes.add(table, key, sql, params);
  }

  /**
   * The event's global position (its index in the store). Looked up by the event's identifier,
   * never taken from the tracking token (see {@link EventPositions}); usually known from the fetch,
   * otherwise one query per batch.
   */
  public long positionOf(String eventIdentifier) {
    return positions.of(eventIdentifier);
  }

  /**
   * {@code value} as JSON for a {@code jsonb} column, its text storable (see {@link #bind}): an
   * event written before the API refused NUL must still project.
   */
  public static String json(Object value) throws JsonProcessingException {
    String json = Json.mapper().writeValueAsString(value);
    if (json.indexOf('\\') < 0 && StorableText.problemWith(json) == null) {
      return json; // nothing escaped, nothing to replace: the usual case
    }
    JsonNode tree = Json.mapper().valueToTree(value);
    return Json.mapper().writeValueAsString(storable(tree));
  }

  private static JsonNode storable(JsonNode node) {
    if (node.isTextual()) {
      return TextNode.valueOf(StorableText.sanitize(node.textValue()));
    }
    if (node.isArray()) {
      ArrayNode array = (ArrayNode) node;
      for (int i = 0; i < array.size(); i++) {
        array.set(i, storable(array.get(i)));
      }
    } else if (node.isObject()) {
      ObjectNode object = Json.mapper().createObjectNode();
      node.fields()
          .forEachRemaining(
              e -> object.set(StorableText.sanitize(e.getKey()), storable(e.getValue())));
      return object;
    }
    return node;
  }

  /**
   * Binds the parameters; text goes through {@link StorableText#sanitize}, so a character that
   * PostgreSQL refuses (NUL) in an old event becomes U+FFFD instead of failing the batch forever.
   */
  private static void bind(PreparedStatement ps, Object[] params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      Object p = params[i];
      ps.setObject(i + 1, p instanceof String ? StorableText.sanitize((String) p) : p);
    }
  }

  /** The queued writes of one unit of work, by table, in order. */
  private final class Writes {

    private final Map<String, List<Run>> tables = new LinkedHashMap<>();

    void add(String table, Object key, String sql, Object[] params) {
      List<Run> runs = tables.computeIfAbsent(table, t -> new ArrayList<>());
      Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (last == null || !last.sql.equals(sql) || !last.keys.add(key)) {
        last = new Run(sql);
        last.keys.add(key);
        runs.add(last);
      }
      last.rows.add(params);
    }

    void flush() {
      try (Connection c = connections.getConnection()) {
        for (List<Run> runs : tables.values()) {
          for (Run run : runs) {
            run.execute(c);
          }
        }
      } catch (SQLException e) {
        throw new ProjectionException("(closing the connection)", e);
      }
      tables.clear();
    }
  }

  /** Consecutive writes of one statement to distinct keys: one JDBC batch. */
  private static final class Run {
    final String sql;
    final Set<Object> keys = new HashSet<>();
    final List<Object[]> rows = new ArrayList<>();

    Run(String sql) {
      this.sql = sql;
    }

    void execute(Connection c) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (Object[] row : rows) {
          bind(ps, row);
          ps.addBatch();
        }
        ps.executeBatch();
      } catch (SQLException e) {
        SQLException cause = e.getNextException() != null ? e.getNextException() : e;
        throw new ProjectionException(sql, cause);
      }
    }
  }

  /** A projection statement failed; the batch rolls back and the processor retries it. */
  public static final class ProjectionException extends RuntimeException {
    ProjectionException(String sql, SQLException cause) {
      super("projection statement failed (" + cause.getSQLState() + "): " + sql, cause);
    }
  }
}
