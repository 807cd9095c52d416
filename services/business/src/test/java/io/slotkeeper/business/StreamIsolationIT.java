package io.slotkeeper.business;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.fulfilment.FulfilmentResult;
import io.slotkeeper.business.inventory.InventorySnapshot;
import io.slotkeeper.business.orders.OrderSnapshot;
import io.slotkeeper.business.orders.RefundSnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.inventory.InventoryEvent;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.events.orders.OrderEvent;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.OrderStatus;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.events.slots.SlotEvent;
import io.slotkeeper.events.slots.SlotStatus;
import io.slotkeeper.slots.SlotSnapshot;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Business IDs are chosen by clients (orders, SKUs) or derived (slots), and nothing stops an order
 * ID from equalling a SKU or a slot's ID. Each aggregate must still have a stream of its own in the
 * store, the command routing and the cache.
 */
class StreamIsolationIT {

  private WriteModelHarness harness;
  private WriteModel model;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("streams");
    model = harness.start("a", true);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private static PlaceOrder place(String commandId, String orderId, String sku) {
    return new PlaceOrder(commandId, orderId, "c-1", "CNY", List.of(new OrderLine(sku, 2, 100)));
  }

  private <R> R send(WriteModel on, io.slotkeeper.events.Command command) {
    return on.commands().<R>send(command).join().result();
  }

  @Test
  void anOrderAndASkuWithTheSameIdAreIndependent() {
    OrderSnapshot placed = send(model, place("place-x", "X", "X"));
    assertThat(placed).isEqualTo(new OrderSnapshot("X", OrderStatus.NEW, 200, 1));

    InventorySnapshot received = send(model, new ReceiveStock("recv-x", "X", 5, "delivery"));
    assertThat(received).isEqualTo(new InventorySnapshot("X", 5, 0, 5, 1, false, null));

    // The order reserves and commits 2 of its own ID's SKU: both streams move on.
    FulfilmentResult result = harness.fulfilment(model).process("X").join();
    assertThat(result.status()).isEqualTo(OrderStatus.COMPLETED);

    assertThat(streamOf("Order", StreamIds.order("X")))
        .containsExactly("OrderPlaced", "OrderProcessingStarted", "OrderCompleted");
    assertThat(streamOf("Inventory", StreamIds.inventory("X")))
        .containsExactly("StockReceived", "StockReserved", "ReservationCommitted");
    harness.awaitString(
        "3/0/3/v3",
        "SELECT on_hand || '/' || reserved || '/' || available || '/v' || version"
            + " FROM inventory WHERE sku = 'X'");
    harness.awaitString("COMPLETED", "SELECT status FROM orders WHERE order_id = 'X'");

    // Another instance (nothing cached) loads each aggregate from its own stream only.
    WriteModel other = harness.start("b", false);
    InventorySnapshot again = send(other, new ReceiveStock("recv-x2", "X", 1, "delivery"));
    assertThat(again).isEqualTo(new InventorySnapshot("X", 4, 0, 4, 4, false, null));
    RefundSnapshot refund = send(other, new RequestRefund("refund-x", "X", "r-1", 50, "late"));
    assertThat(refund.refundableCents()).isEqualTo(150);
  }

  @Test
  void aSkuDoesNotStopAnOrderOfTheSameIdFromBeingPlaced() {
    send(model, new ReceiveStock("recv-y", "Y", 5, "delivery"));
    CommandOutcome<OrderSnapshot> placed =
        model.commands().<OrderSnapshot>send(place("place-y", "Y", "SKU-1")).join();
    assertThat(placed.result()).isEqualTo(new OrderSnapshot("Y", OrderStatus.NEW, 200, 1));
    assertThat(streamOf("Order", StreamIds.order("Y"))).containsExactly("OrderPlaced");
    assertThat(streamOf("Inventory", StreamIds.inventory("Y"))).containsExactly("StockReceived");
  }

  @Test
  void anOrderWithASlotsIdDoesNotBreakTheSlot() {
    Instant nominal = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    String slotId = DeterministicIds.forSlot("job-1", nominal);
    send(model, place("place-s", slotId, "SKU-1"));

    SlotSnapshot fired =
        send(
            model,
            new FireSlot("fire-s", slotId, "job-1", nominal, "a", 1, 1, /* backfill= */ false));
    assertThat(fired.accepted()).isTrue();
    assertThat(fired.status()).isEqualTo(SlotStatus.FIRED);
    assertThat(fired.version()).isEqualTo(1);
    SlotSnapshot completed =
        send(model, new CompleteSlot("complete-s", slotId, "a", 1, Map.of("orders", 0L), 10));
    assertThat(completed.status()).isEqualTo(SlotStatus.COMPLETED);

    assertThat(streamOf("Order", StreamIds.order(slotId))).containsExactly("OrderPlaced");
    assertThat(streamOf("Slot", StreamIds.slot(slotId)))
        .containsExactly("SlotFired", "SlotCompleted");
  }

  /**
   * The events of {@code streamId}, the one stream of {@code type} in the store, read back through
   * Axon: their types in order, each checked to belong to that aggregate type.
   */
  private List<String> streamOf(String type, String streamId) {
    assertThat(
            harness.queryString(
                "SELECT string_agg(DISTINCT aggregate_identifier, ',') FROM domain_event_entry"
                    + " WHERE type = '"
                    + type
                    + "'"))
        .isEqualTo(streamId);
    Class<?> family =
        switch (type) {
          case "Order" -> OrderEvent.class;
          case "Inventory" -> InventoryEvent.class;
          default -> SlotEvent.class;
        };
    List<String> types = new ArrayList<>();
    DomainEventStream events = model.eventStore().readEvents(streamId);
    long expectedSeq = 0;
    while (events.hasNext()) {
      DomainEventMessage<?> e = events.next();
      assertThat(e.getPayload())
          .as("event %s of stream %s", e.getSequenceNumber(), streamId)
          .isInstanceOf(family);
      assertThat(e.getType()).isEqualTo(type);
      assertThat(e.getSequenceNumber()).isEqualTo(expectedSeq++);
      types.add(e.getPayloadType().getSimpleName());
    }
    return types;
  }
}
