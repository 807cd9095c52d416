package io.slotkeeper.business.inventory;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryCommand.CommitReservation;
import io.slotkeeper.events.inventory.InventoryCommand.CountStock;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.inventory.InventoryCommand.ReleaseReservation;
import io.slotkeeper.events.inventory.InventoryCommand.ReserveStock;
import io.slotkeeper.events.inventory.InventoryEvent;
import io.slotkeeper.events.inventory.InventoryEvent.ReservationCommitted;
import io.slotkeeper.events.inventory.InventoryEvent.ReservationReleased;
import io.slotkeeper.events.inventory.InventoryEvent.StockCounted;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.events.inventory.InventoryEvent.StockReserved;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * The stock of one SKU (business ID = the SKU, stream = {@link StreamIds#inventory}). On-hand and
 * available (on-hand minus reserved) never go negative, and an order holds at most one reservation
 * per SKU. Every command may meet an unknown SKU (create-if-missing): receiving and counting create
 * it, reserving is refused for lack of stock, releasing and committing are no-ops. Commands that
 * are valid but change nothing answer with {@code noop = true} instead of failing, so a re-sent
 * flow step never has a second effect.
 *
 * <p>Choices: a second reservation for the same order with the same qty under a new command ID is a
 * no-op (the order already holds it); with another qty, or after the order's reservation was
 * released or committed, it is an illegal transition (an order reserves a SKU once). A count not
 * newer than the last applied count emits no event and answers no-op; a count below the reserved
 * qty is refused as a rule violation, since available stock would go negative.
 */
public class Inventory {

  /** Where a closed reservation ended. */
  private enum Closed {
    RELEASED,
    COMMITTED
  }

  private String sku;
  private long onHand;
  private long reserved;
  private Instant lastCountAsOf;
  private final Map<String, Integer> reservations = new HashMap<>();
  private final Map<String, Closed> closed = new HashMap<>();
  private long version;

  protected Inventory() {
    // for Axon
  }

  /**
   * Axon's aggregate identifier: the stream of the SKU's inventory, namespaced so that another
   * aggregate type with the same business ID never shares it (see {@link StreamIds}).
   */
  @AggregateIdentifier
  private String streamId() {
    return StreamIds.inventory(sku);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  InventorySnapshot handle(ReceiveStock cmd) {
    requireSku(cmd.sku());
    requirePositive(cmd.qty());
    apply(new StockReceived(cmd.sku(), cmd.qty(), cmd.reason(), onHand + cmd.qty(), reserved));
    return snapshot(null);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  InventorySnapshot handle(CountStock cmd) {
    requireSku(cmd.sku());
    if (cmd.onHand() < 0 || cmd.asOf() == null) {
      throw new InvalidCommandException("a count needs onHand >= 0 and an asOf time");
    }
    if (lastCountAsOf != null && !cmd.asOf().isAfter(lastCountAsOf)) {
      return snapshot("count as of " + cmd.asOf() + " ignored: a count as of " + lastCountAsOf);
    }
    if (cmd.onHand() < reserved) {
      // Available would go negative; the reservations must be released first.
      throw new RuleViolationException(
          cmd.sku(),
          "count " + cmd.onHand() + " of " + cmd.sku() + " is below reserved " + reserved);
    }
    apply(new StockCounted(cmd.sku(), cmd.asOf(), cmd.onHand() - onHand, cmd.onHand(), reserved));
    return snapshot(null);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  InventorySnapshot handle(ReserveStock cmd) {
    requireSku(cmd.sku());
    requireOrder(cmd.orderId());
    requirePositive(cmd.qty());
    Integer existing = reservations.get(cmd.orderId());
    if (existing != null && existing == cmd.qty()) {
      return snapshot("order " + cmd.orderId() + " already holds this reservation");
    }
    if (existing != null || closed.containsKey(cmd.orderId())) {
      String state = existing != null ? "RESERVED " + existing : closed.get(cmd.orderId()).name();
      throw new IllegalTransitionException(
          cmd.sku(),
          state,
          "cannot reserve " + cmd.sku() + " for order " + cmd.orderId() + ": it is " + state);
    }
    if (cmd.qty() > available()) {
      throw new RuleViolationException(
          cmd.sku(),
          "insufficient stock of "
              + cmd.sku()
              + ": requested "
              + cmd.qty()
              + ", available "
              + available());
    }
    apply(new StockReserved(cmd.sku(), cmd.orderId(), cmd.qty(), onHand, reserved + cmd.qty()));
    return snapshot(null);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  InventorySnapshot handle(ReleaseReservation cmd) {
    return closeReservation(
        cmd.sku(),
        cmd.orderId(),
        qty -> new ReservationReleased(sku, cmd.orderId(), qty, onHand, reserved - qty));
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  InventorySnapshot handle(CommitReservation cmd) {
    return closeReservation(
        cmd.sku(),
        cmd.orderId(),
        qty -> new ReservationCommitted(sku, cmd.orderId(), qty, onHand - qty, reserved - qty));
  }

  /** Applies the event built from the active reservation's qty, or reports a no-op. */
  private InventorySnapshot closeReservation(
      String requestedSku, String orderId, IntFunction<InventoryEvent> event) {
    requireSku(requestedSku);
    requireOrder(orderId);
    Integer qty = reservations.get(orderId);
    if (qty == null) {
      return noActiveReservation(requestedSku, orderId);
    }
    apply(event.apply(qty));
    return snapshot(null);
  }

  private InventorySnapshot noActiveReservation(String requestedSku, String orderId) {
    Closed state = closed.get(orderId);
    String note =
        state == null
            ? "order " + orderId + " holds no reservation of " + requestedSku
            : "the reservation of order " + orderId + " is already " + state;
    if (sku == null) {
      // Unknown SKU: nothing to report but zeros.
      return new InventorySnapshot(requestedSku, 0, 0, 0, 0, true, note);
    }
    return snapshot(note);
  }

  private long available() {
    return onHand - reserved;
  }

  /** The current state; a non-null note marks the answer as a no-op. */
  private InventorySnapshot snapshot(String noopNote) {
    return new InventorySnapshot(
        sku, onHand, reserved, available(), version, noopNote != null, noopNote);
  }

  private static void requireSku(String sku) {
    if (sku == null || sku.isBlank()) {
      throw new InvalidCommandException("a SKU is required");
    }
  }

  private static void requireOrder(String orderId) {
    if (orderId == null || orderId.isBlank()) {
      throw new InvalidCommandException("an order ID is required");
    }
  }

  private static void requirePositive(int qty) {
    if (qty <= 0) {
      throw new InvalidCommandException("qty must be positive, was " + qty);
    }
  }

  @EventSourcingHandler
  void on(StockReceived e, @SequenceNumber long seq) {
    level(e, seq);
  }

  @EventSourcingHandler
  void on(StockCounted e, @SequenceNumber long seq) {
    level(e, seq);
    lastCountAsOf = e.asOf();
  }

  @EventSourcingHandler
  void on(StockReserved e, @SequenceNumber long seq) {
    level(e, seq);
    reservations.put(e.orderId(), e.qty());
  }

  @EventSourcingHandler
  void on(ReservationReleased e, @SequenceNumber long seq) {
    level(e, seq);
    reservations.remove(e.orderId());
    closed.put(e.orderId(), Closed.RELEASED);
  }

  @EventSourcingHandler
  void on(ReservationCommitted e, @SequenceNumber long seq) {
    level(e, seq);
    reservations.remove(e.orderId());
    closed.put(e.orderId(), Closed.COMMITTED);
  }

  /** Every event carries the resulting levels: assign them. */
  private void level(InventoryEvent e, long seq) {
    sku = e.sku();
    onHand = e.onHand();
    reserved = e.reserved();
    version = seq + 1;
  }
}
