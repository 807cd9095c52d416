package io.slotkeeper.business.orders;

import io.slotkeeper.commands.projection.ProjectionSql;
import io.slotkeeper.events.orders.OrderEvent.RefundIssued;
import io.slotkeeper.events.orders.OrderEvent.RefundRejected;
import io.slotkeeper.events.orders.OrderEvent.RefundRequested;
import io.slotkeeper.events.orders.RefundStatus;
import java.sql.Timestamp;
import java.time.Instant;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.messaging.annotation.MessageIdentifier;

/**
 * The {@code refunds} read table, in its own processing group so it can be rebuilt without the
 * orders table. Exactly once per event, like {@link OrderProjection}: rows and token commit
 * together, and updates are guarded by the row's last applied position.
 */
@ProcessingGroup(RefundProjection.NAME)
public class RefundProjection {

  public static final String NAME = "refunds-projection";

  private static final String INSERT =
      "INSERT INTO refunds (refund_id, order_id, amount_cents, reason, status, requested_at,"
          + " updated_at, last_position) VALUES (?, ?, ?, ?, 'REQUESTED', ?, ?, ?)"
          + " ON CONFLICT (refund_id) DO NOTHING";
  private static final String ISSUED =
      "UPDATE refunds SET status = ?, issued_at = ?, updated_at = ?, last_position = ?"
          + " WHERE refund_id = ? AND last_position < ?";
  private static final String REJECTED =
      "UPDATE refunds SET status = ?, rejected_at = ?, updated_at = ?, last_position = ?"
          + " WHERE refund_id = ? AND last_position < ?";

  private static final String TABLE = "refunds";

  private final ProjectionSql sql;

  public RefundProjection(ProjectionSql sql) {
    this.sql = sql;
  }

  @EventHandler
  void on(
      RefundRequested e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    Timestamp ts = Timestamp.from(at);
    sql.write(
        TABLE,
        e.refundId(),
        INSERT,
        e.refundId(),
        e.orderId(),
        e.amountCents(),
        e.reason(),
        ts,
        ts,
        sql.positionOf(eventId));
  }

  @EventHandler
  void on(
      RefundIssued e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    close(ISSUED, RefundStatus.ISSUED, e.refundId(), at, eventId);
  }

  @EventHandler
  void on(
      RefundRejected e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    close(REJECTED, RefundStatus.REJECTED, e.refundId(), at, eventId);
  }

  @ResetHandler
  void reset() {
    sql.update("DELETE FROM refunds");
  }

  private void close(
      String statement,
      RefundStatus status,
      String refundId,
      Instant at,
      @MessageIdentifier String eventId) {
    long position = sql.positionOf(eventId);
    Timestamp ts = Timestamp.from(at);
    sql.write(TABLE, refundId, statement, status.name(), ts, ts, position, refundId, position);
  }
}
