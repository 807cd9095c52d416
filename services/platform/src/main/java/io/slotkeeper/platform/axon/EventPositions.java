package io.slotkeeper.platform.axon;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.axonframework.common.jdbc.ConnectionProvider;

/**
 * The global position of a stored event, by its identifier.
 *
 * <p>Not the tracking token's position: for Axon's gap-aware token that is the highest position
 * seen so far, so an event whose transaction committed late (filling a gap) would be reported at a
 * later event's position. The chaos test caught exactly that in the read tables.
 */
public final class EventPositions {

  private static final String BY_ID =
      "SELECT global_index FROM domain_event_entry WHERE event_identifier = ?";

  private final ConnectionProvider connections;

  public EventPositions(ConnectionProvider connections) {
    this.connections = connections;
  }

  /** The event's position; inside a transaction, on that transaction's connection. */
  public long of(String eventIdentifier) {
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(BY_ID)) {
      ps.setString(1, eventIdentifier);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no stored event " + eventIdentifier);
        }
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the position of event " + eventIdentifier, e);
    }
  }
}
