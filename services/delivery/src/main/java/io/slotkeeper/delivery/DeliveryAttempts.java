package io.slotkeeper.delivery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The {@code delivery_attempts} table (JDBC, called on the delivery's worker thread): every
 * attempt's row, and whether an earlier attempt already ended the slot for good. Each statement has
 * a deadline, so a stalled PostgreSQL fails the call instead of holding the worker.
 */
public final class DeliveryAttempts {

  static final int QUERY_TIMEOUT_SECONDS = 5;

  private static final String INSERT =
      "INSERT INTO delivery_attempts (slot_id, attempt, fencing_token, instance_id, schedule,"
          + " nominal, idem_key, url, outcome, status, latency_ms, error, response_head,"
          + " retry_after_ms, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT DO NOTHING";
  private static final String FINAL =
      "SELECT outcome, status FROM delivery_attempts WHERE slot_id = ?"
          + " AND (outcome IN ('REFUSED', 'BLOCKED', 'NO_SECRET')"
          + " OR (outcome = 'STALE' AND fencing_token >= ?)) ORDER BY sent_at LIMIT 1";
  private static final String FOR_SLOT =
      "SELECT * FROM delivery_attempts WHERE slot_id = ? ORDER BY sent_at, attempt";

  private final DataSource dataSource;

  public DeliveryAttempts(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Records one attempt (a repeat of the same row changes nothing). */
  public void record(AttemptRecord a) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      ps.setString(1, a.slotId());
      ps.setInt(2, a.attempt());
      ps.setLong(3, a.fencingToken());
      ps.setString(4, a.instanceId());
      ps.setString(5, a.schedule());
      ps.setTimestamp(6, Timestamp.from(a.nominal()));
      ps.setString(7, a.idempotencyKey());
      ps.setString(8, a.url());
      ps.setString(9, a.outcome().name());
      if (a.status() == null) {
        ps.setNull(10, Types.INTEGER);
      } else {
        ps.setInt(10, a.status());
      }
      ps.setLong(11, a.latency().toMillis());
      ps.setString(12, a.error());
      ps.setString(13, a.responseHead());
      if (a.retryAfter() == null) {
        ps.setNull(14, Types.BIGINT);
      } else {
        ps.setLong(14, a.retryAfter().toMillis());
      }
      ps.setTimestamp(15, Timestamp.from(a.sentAt()));
      ps.executeUpdate();
    }
  }

  /**
   * Why the slot is not to be sent again under {@code token}: an earlier attempt was refused (a
   * 4xx, the guard, a missing secret), or the receiver called a token at least as new stale. The
   * slot ledger does not know final failures, so a takeover may fire such a slot again: it then
   * fails at once without a request.
   */
  public Optional<String> finalOutcome(String slotId, long token) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(FINAL)) {
      ps.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      ps.setString(1, slotId);
      ps.setLong(2, token);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        int status = rs.getInt("status");
        String http = rs.wasNull() ? "" : " (HTTP " + status + ")";
        return Optional.of(rs.getString("outcome") + http);
      }
    }
  }

  /** Every attempt of the slot, oldest first. */
  public List<AttemptRecord> forSlot(String slotId) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(FOR_SLOT)) {
      ps.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
      ps.setString(1, slotId);
      List<AttemptRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int status = rs.getInt("status");
          Integer statusOrNull = rs.wasNull() ? null : status;
          long retryAfter = rs.getLong("retry_after_ms");
          Duration retryAfterOrNull = rs.wasNull() ? null : Duration.ofMillis(retryAfter);
          out.add(
              new AttemptRecord(
                  rs.getString("slot_id"),
                  rs.getInt("attempt"),
                  rs.getLong("fencing_token"),
                  rs.getString("instance_id"),
                  rs.getString("schedule"),
                  rs.getTimestamp("nominal").toInstant(),
                  rs.getString("idem_key"),
                  rs.getString("url"),
                  AttemptRecord.Outcome.valueOf(rs.getString("outcome")),
                  statusOrNull,
                  Duration.ofMillis(rs.getLong("latency_ms")),
                  rs.getString("error"),
                  rs.getString("response_head"),
                  retryAfterOrNull,
                  rs.getTimestamp("sent_at").toInstant()));
        }
      }
      return out;
    }
  }
}
