package io.slotkeeper.business.inventory;

import io.slotkeeper.commands.projection.ProjectionSql;
import io.slotkeeper.events.inventory.InventoryEvent;
import io.slotkeeper.events.inventory.InventoryEvent.ReservationCommitted;
import io.slotkeeper.events.inventory.InventoryEvent.ReservationReleased;
import io.slotkeeper.events.inventory.InventoryEvent.StockCounted;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.events.inventory.InventoryEvent.StockReserved;
import java.sql.Timestamp;
import java.time.Instant;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.messaging.annotation.MessageIdentifier;
import org.axonframework.messaging.annotation.MetaDataValue;

/**
 * The {@code inventory} level per SKU and the {@code inventory_log} of every change. Exactly once
 * per event: rows and the processor's token commit in one transaction; the level is guarded by the
 * row's last applied position and the log is keyed by the event's position, so even a replay over
 * existing rows cannot apply or log a change twice.
 */
@ProcessingGroup(InventoryProjection.NAME)
public class InventoryProjection {

  public static final String NAME = "inventory-projection";

  private static final String UPSERT =
      "INSERT INTO inventory (sku, on_hand, reserved, available, version, last_position,"
          + " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (sku) DO UPDATE SET on_hand = EXCLUDED.on_hand,"
          + " reserved = EXCLUDED.reserved, available = EXCLUDED.available,"
          + " version = EXCLUDED.version, last_position = EXCLUDED.last_position,"
          + " updated_at = EXCLUDED.updated_at"
          + " WHERE inventory.last_position < EXCLUDED.last_position";
  private static final String LOG =
      "INSERT INTO inventory_log (position, sku, delta_on_hand, delta_reserved, reason, order_id,"
          + " slot, command_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (position) DO NOTHING";

  private final ProjectionSql sql;

  public InventoryProjection(ProjectionSql sql) {
    this.sql = sql;
  }

  @EventHandler
  void on(
      InventoryEvent e,
      @SequenceNumber long seq,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MetaDataValue("commandId") String commandId,
      @MetaDataValue("slot") String slot,
      @MessageIdentifier String eventId) {
    long position = sql.positionOf(eventId);
    Timestamp ts = Timestamp.from(at);
    sql.write(
        "inventory",
        e.sku(),
        UPSERT,
        e.sku(),
        e.onHand(),
        e.reserved(),
        e.onHand() - e.reserved(),
        seq + 1,
        position,
        ts);
    Change c = Change.of(e);
    sql.write(
        "inventory_log",
        position,
        LOG,
        position,
        e.sku(),
        c.onHand,
        c.reserved,
        c.reason,
        c.orderId,
        slot,
        commandId,
        ts);
  }

  @ResetHandler
  void reset() {
    sql.update("DELETE FROM inventory_log");
    sql.update("DELETE FROM inventory");
  }

  /** What an event changed, as one log row. */
  private record Change(long onHand, long reserved, String reason, String orderId) {

    static Change of(InventoryEvent e) {
      if (e instanceof StockReceived r) {
        return new Change(r.qty(), 0, r.reason() == null ? "receive" : r.reason(), null);
      } else if (e instanceof StockReserved r) {
        return new Change(0, r.qty(), "reserve", r.orderId());
      } else if (e instanceof ReservationReleased r) {
        return new Change(0, -r.qty(), "release", r.orderId());
      } else if (e instanceof ReservationCommitted r) {
        return new Change(-r.qty(), -r.qty(), "commit", r.orderId());
      } else if (e instanceof StockCounted r) {
        return new Change(r.delta(), 0, "count as of " + r.asOf(), null);
      }
      throw new IllegalArgumentException("unknown inventory event " + e.getClass().getName());
    }
  }
}
