package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.db.Database;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Text that PostgreSQL cannot store (NUL) in events written before the API refused it: the
 * projections store it with U+FFFD and advance, so later events become visible (before, the segment
 * failed on every retry and every later order of it stayed invisible). And the write side itself
 * refuses a command carrying such text, whoever sends it.
 */
class UnstorableTextIT {

  private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 1, 100));

  private WriteModelHarness harness;
  private WriteModel model;
  private EventStorageEngine engine;
  private Database writer;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("unstorable");
    model = harness.start("a", true);
    writer = harness.database(4, "old-writer");
    engine = new AxonStorage(writer).eventStorageEngine();
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  /** Appends straight to the store, as a version without the rule did. */
  private void appendOld(String type, String streamId, long seq, Object payload) {
    Transaction tx = writer.transactions().startTransaction();
    engine.appendEvents(
        new GenericDomainEventMessage<>(type, streamId, seq, payload, Map.of("commandId", "old")));
    tx.commit();
  }

  @Test
  void storedNulStillProjectsAndLaterOrdersBecomeVisible() {
    String id = "o-nul";
    appendOld(
        "Order",
        StreamIds.order(id),
        0,
        new OrderPlaced(id, "c\u0000", "CNY", List.of(new OrderLine("x\u0000", 1, 100)), 100));
    appendOld("Order", StreamIds.order(id), 1, new OrderCancelled(id, "a\u0000"));
    appendOld(
        "Inventory",
        StreamIds.inventory("S-NUL"),
        0,
        new StockReceived("S-NUL", 5, "r\u0000", 5, 0));
    // Later orders: with two segments, some share the poisoned order's segment.
    for (int i = 0; i < 20; i++) {
      model.commands().send(new PlaceOrder("cmd-" + i, "later-" + i, "c", "CNY", LINES)).join();
    }

    harness.awaitLong(20, "SELECT count(*) FROM orders WHERE order_id LIKE 'later-%'");
    harness.awaitString(
        "CANCELLED|a\uFFFD|c\uFFFD|x\uFFFD",
        "SELECT status || '|' || status_reason || '|' || customer_id || '|' || (items->0->>'sku')"
            + " FROM orders WHERE order_id = 'o-nul'");
    harness.awaitString(
        "r\uFFFD", "SELECT reason FROM inventory_log WHERE sku = 'S-NUL' AND delta_on_hand = 5");
    model.projectionLag().poll();
    assertThat(model.projectionLag().stuck()).isEmpty();
  }

  @Test
  void theWriteSideRefusesACommandCarryingUnstorableText() {
    model.commands().send(new PlaceOrder("cmd-p", "o-1", "c", "CNY", LINES)).join();

    assertThatThrownBy(
            () -> model.commands().send(new CancelOrder("cmd-c", "o-1", "a\u0000")).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            InvalidCommandException.class,
            e -> assertThat(e.fieldErrors()).containsOnlyKeys("reason"));
    assertThatThrownBy(
            () ->
                model
                    .commands()
                    .send(
                        new PlaceOrder(
                            "cmd-q", "o-2", "c", "CNY", List.of(new OrderLine("\uD800", 1, 1))))
                    .join())
        .cause()
        .isInstanceOfSatisfying(
            InvalidCommandException.class,
            e -> assertThat(e.fieldErrors()).containsOnlyKeys("items[0].sku"));

    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isEqualTo(1);
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger")).isEqualTo(1);
  }
}
