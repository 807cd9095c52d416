package io.slotkeeper.commands.projection;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;

/**
 * Every processor's segments as stored in {@code token_entry}, whichever instance runs them (or
 * none): read without claiming anything, so lag counts all segments and a segment that no instance
 * holds is seen.
 */
final class TokenTable {

  /** One segment: its position (-1 before its first event) and whether a live claim holds it. */
  record Segment(String processor, int segment, long position, String owner, boolean claimed) {}

  private static final String SELECT =
      "SELECT processor_name, segment, token, token_type, owner, timestamp FROM token_entry"
          + " ORDER BY processor_name, segment";

  private final Serializer serializer;
  private final Duration claimTimeout;

  TokenTable(Serializer serializer, Duration claimTimeout) {
    this.serializer = serializer;
    this.claimTimeout = claimTimeout;
  }

  /**
   * The segments, a claim counting as live when renewed within the claim timeout of {@code now}.
   */
  List<Segment> read(Connection c, Instant now) throws SQLException {
    List<Segment> segments = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(SELECT)) {
      while (rs.next()) {
        String owner = rs.getString("owner");
        segments.add(
            new Segment(
                rs.getString("processor_name"),
                rs.getInt("segment"),
                position(rs.getBytes("token"), rs.getString("token_type")),
                owner,
                owner != null && live(rs.getString("timestamp"), now)));
      }
    }
    return segments;
  }

  private long position(byte[] token, String type) {
    if (token == null || type == null) {
      return -1;
    }
    TrackingToken t =
        serializer.deserialize(new SimpleSerializedObject<>(token, byte[].class, type, null));
    return t == null ? -1 : t.position().orElse(-1);
  }

  private boolean live(String claimedAt, Instant now) {
    try {
      return claimedAt != null && Instant.parse(claimedAt).plus(claimTimeout).isAfter(now);
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
