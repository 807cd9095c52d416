package io.slotkeeper.domain.projection;

import io.slotkeeper.platform.axon.EventPositions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.axonframework.common.jdbc.ConnectionProvider;

/**
 * JDBC helper of projections. Statements run on the processor's transaction (shared with its
 * token), so a batch's rows and its token commit together.
 */
public final class ProjectionSql {

  private final ConnectionProvider connections;
  private final EventPositions positions;

  public ProjectionSql(ConnectionProvider connections) {
    this.connections = connections;
    this.positions = new EventPositions(connections);
  }

  /** Runs an update with the given parameters; returns the row count. */
  public int update(String sql, Object... params) {
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new ProjectionException(sql, e);
    }
  }

  /**
   * The event's global position (its index in the store). Looked up by the event's identifier,
   * never taken from the tracking token (see {@link EventPositions}).
   */
  public long positionOf(String eventIdentifier) {
    return positions.of(eventIdentifier);
  }

  /** A projection statement failed; the batch rolls back and the processor retries it. */
  public static final class ProjectionException extends RuntimeException {
    ProjectionException(String sql, SQLException cause) {
      super("projection statement failed (" + cause.getSQLState() + "): " + sql, cause);
    }
  }
}
