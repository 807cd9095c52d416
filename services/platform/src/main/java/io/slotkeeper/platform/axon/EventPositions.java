package io.slotkeeper.platform.axon;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * The global position of a stored event, by its identifier.
 *
 * <p>Not the tracking token's position: for Axon's gap-aware token that is the highest position
 * seen so far, so an event whose transaction committed late (filling a gap) would be reported at a
 * later event's position. The chaos test caught exactly that in the read tables.
 *
 * <p>The event store engine tells this class each event's position as it fetches it ({@link
 * #fetched}, see {@link AxonStorage}), and a processor handles events shortly after they were
 * fetched: so its events' positions are usually known and cost no query. Otherwise, inside a
 * processor's batch (a {@link BatchingUnitOfWork}), the positions of all the batch's events are
 * read with one query, at the first event, and kept on the unit of work: one round trip per batch
 * instead of one per event.
 */
public final class EventPositions {

  private static final String BY_ID =
      "SELECT global_index FROM domain_event_entry WHERE event_identifier = ?";
  private static final String BY_IDS =
      "SELECT event_identifier, global_index FROM domain_event_entry"
          + " WHERE event_identifier = ANY(?)";

  /** Fetched positions remembered: far more than the processors' lag under load needs. */
  static final int REMEMBERED = 32_768;

  private final ConnectionProvider connections;
  // Positions are immutable once stored, so remembered ones never go stale; oldest leave first.
  private final Map<String, Long> fetched =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
          return size() > REMEMBERED;
        }
      };
  // One resource per instance: two helpers on one unit of work must not share a map by accident.
  private final String resourceKey =
      EventPositions.class.getName() + "@" + System.identityHashCode(this);

  public EventPositions(ConnectionProvider connections) {
    this.connections = connections;
  }

  /** Remembers the position of an event the store just read (called by the storage engine). */
  public void fetched(String eventIdentifier, long position) {
    synchronized (fetched) {
      fetched.put(eventIdentifier, position);
    }
  }

  /** The event's position; inside a transaction, on that transaction's connection. */
  public long of(String eventIdentifier) {
    Long known;
    synchronized (fetched) {
      known = fetched.get(eventIdentifier);
    }
    if (known != null) {
      return known;
    }
    Long batched = CurrentUnitOfWork.map(uow -> ofBatch(uow).get(eventIdentifier)).orElse(null);
    return batched != null ? batched : single(eventIdentifier);
  }

  /** The positions of the current batch's events (empty outside a batch). */
  private Map<String, Long> ofBatch(UnitOfWork<?> uow) {
    UnitOfWork<?> root = uow.root();
    if (!(root instanceof BatchingUnitOfWork)) {
      return Map.of();
    }
    return root.getOrComputeResource(
        resourceKey, k -> batch(((BatchingUnitOfWork<?>) root).getMessages()));
  }

  private Map<String, Long> batch(Iterable<? extends Message<?>> messages) {
    Map<String, Long> positions = new HashMap<>();
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(BY_IDS)) {
      List<String> ids = new ArrayList<>();
      messages.forEach(m -> ids.add(m.getIdentifier()));
      Array array = c.createArrayOf("varchar", ids.toArray());
      ps.setArray(1, array);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          positions.put(rs.getString(1), rs.getLong(2));
        }
      }
      return positions;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the positions of a batch of events", e);
    }
  }

  private long single(String eventIdentifier) {
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
