package io.slotkeeper.domain.projection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.eventhandling.TrackingToken;

/**
 * JDBC helper of projections. Statements run on the processor's transaction (shared with its
 * token), so a batch's rows and its token commit together.
 */
public final class ProjectionSql {

  private final ConnectionProvider connections;

  public ProjectionSql(ConnectionProvider connections) {
    this.connections = connections;
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

  /** The event's global position (its index in the store), from the processor's token. */
  public static long position(TrackingToken token) {
    return token
        .position()
        .orElseThrow(() -> new IllegalStateException("token without position: " + token));
  }

  /** A projection statement failed; the batch rolls back and the processor retries it. */
  public static final class ProjectionException extends RuntimeException {
    ProjectionException(String sql, SQLException cause) {
      super("projection statement failed (" + cause.getSQLState() + "): " + sql, cause);
    }
  }
}
