package io.slotkeeper.business.orders;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slotkeeper.commands.projection.ProjectionSql;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderCompleted;
import io.slotkeeper.events.orders.OrderEvent.OrderFailed;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderEvent.OrderProcessingStarted;
import io.slotkeeper.events.orders.OrderStatus;
import java.time.Instant;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.messaging.annotation.MessageIdentifier;

/**
 * The {@code orders} read table. Exactly once per event: rows and the processor's token commit in
 * one transaction; and every write is guarded by the row's last applied position, so even a replay
 * over existing rows cannot apply an event twice.
 */
@ProcessingGroup(OrderProjection.NAME)
public class OrderProjection {

  public static final String NAME = "orders-projection";

  private static final String INSERT =
      "INSERT INTO orders (order_id, customer_id, amount_cents, currency, items, status, version,"
          + " last_position, created_at, updated_at)"
          + " VALUES (?, ?, ?, ?, ?::jsonb, 'NEW', ?, ?, ?, ?)"
          + " ON CONFLICT (order_id) DO NOTHING";
  private static final String TRANSITION =
      "UPDATE orders SET status = ?, status_reason = ?, version = ?, last_position = ?,"
          + " updated_at = ? WHERE order_id = ? AND last_position < ?";

  private static final String TABLE = "orders";

  private final ProjectionSql sql;

  public OrderProjection(ProjectionSql sql) {
    this.sql = sql;
  }

  @EventHandler
  void on(
      OrderPlaced e,
      @SequenceNumber long seq,
      @Timestamp Instant at,
      @MessageIdentifier String eventId)
      throws JsonProcessingException {
    java.sql.Timestamp ts = java.sql.Timestamp.from(at);
    sql.write(
        TABLE,
        e.orderId(),
        INSERT,
        e.orderId(),
        e.customerId(),
        e.amountCents(),
        e.currency(),
        ProjectionSql.json(e.items()),
        seq + 1,
        sql.positionOf(eventId),
        ts,
        ts);
  }

  @EventHandler
  void on(
      OrderCancelled e,
      @SequenceNumber long seq,
      @Timestamp Instant at,
      @MessageIdentifier String eventId) {
    transition(e.orderId(), OrderStatus.CANCELLED, e.reason(), seq, at, eventId);
  }

  @EventHandler
  void on(
      OrderProcessingStarted e,
      @SequenceNumber long seq,
      @Timestamp Instant at,
      @MessageIdentifier String eventId) {
    transition(e.orderId(), OrderStatus.PROCESSING, null, seq, at, eventId);
  }

  @EventHandler
  void on(
      OrderCompleted e,
      @SequenceNumber long seq,
      @Timestamp Instant at,
      @MessageIdentifier String eventId) {
    transition(e.orderId(), OrderStatus.COMPLETED, null, seq, at, eventId);
  }

  @EventHandler
  void on(
      OrderFailed e,
      @SequenceNumber long seq,
      @Timestamp Instant at,
      @MessageIdentifier String eventId) {
    transition(e.orderId(), OrderStatus.FAILED, e.reason(), seq, at, eventId);
  }

  @ResetHandler
  void reset() {
    sql.update("DELETE FROM orders");
  }

  private void transition(
      String orderId,
      OrderStatus status,
      String reason,
      long seq,
      Instant at,
      @MessageIdentifier String eventId) {
    long position = sql.positionOf(eventId);
    sql.write(
        TABLE,
        orderId,
        TRANSITION,
        status.name(),
        reason,
        seq + 1,
        position,
        java.sql.Timestamp.from(at),
        orderId,
        position);
  }
}
