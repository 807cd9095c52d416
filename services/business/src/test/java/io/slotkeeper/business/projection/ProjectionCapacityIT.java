package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.business.inventory.InventoryProjection;
import io.slotkeeper.business.orders.OrderProjection;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.db.Database;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A backlog of events (a restart after downtime, or a rebuild) is projected at the projections'
 * full rate, and a rebuild gives the same tables. The rate printed is the projections' capacity,
 * independent of a command load; the assertion's floor is low, as CI machines are shared.
 */
class ProjectionCapacityIT {

  private static final int ORDERS = 3_000;
  private static final int SKUS = 50;
  private static final int RECEIPTS = 3_000;
  private static final String ORDERS_DIGEST =
      "SELECT md5(string_agg(order_id || status || version || last_position, ','"
          + " ORDER BY order_id)) FROM orders";
  private static final String INVENTORY_DIGEST =
      "SELECT md5(string_agg(position || sku || delta_on_hand, ',' ORDER BY position))"
          + " || (SELECT md5(string_agg(sku || on_hand || version || last_position, ','"
          + " ORDER BY sku)) FROM inventory) FROM inventory_log";

  private WriteModelHarness harness;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("capacity");
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  @Test
  void aBacklogIsProjectedQuicklyAndARebuildGivesTheSameTables() {
    int events = seed();
    WriteModel model = harness.start("a", false);

    long started = System.nanoTime();
    model.processors().get(OrderProjection.NAME).start();
    model.processors().get(InventoryProjection.NAME).start();
    awaitCaughtUp();
    double rate = events / ((System.nanoTime() - started) / 1e9);
    System.out.printf("projected a backlog of %d events at %.0f events/s%n", events, rate);

    String orders = harness.queryString(ORDERS_DIGEST);
    String inventory = harness.queryString(INVENTORY_DIGEST);
    started = System.nanoTime();
    model.rebuild(OrderProjection.NAME);
    model.rebuild(InventoryProjection.NAME);
    awaitCaughtUp();
    System.out.printf(
        "rebuilt from %d events at %.0f events/s%n",
        events, events / ((System.nanoTime() - started) / 1e9));
    assertThat(harness.queryString(ORDERS_DIGEST)).isEqualTo(orders);
    assertThat(harness.queryString(INVENTORY_DIGEST)).isEqualTo(inventory);
    assertThat(rate).isGreaterThan(500);
    // Both projections ran (and rebuilt) on several segments.
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM token_entry WHERE processor_name = '"
                    + OrderProjection.NAME
                    + "'"))
        .isGreaterThan(1);
  }

  private void awaitCaughtUp() {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                harness.queryLong("SELECT count(*) FROM orders WHERE status = 'CANCELLED'")
                        == ORDERS / 2
                    && harness.queryLong("SELECT count(*) FROM inventory_log") == RECEIPTS);
  }

  /** Orders (half of them cancelled) and stock receipts, appended straight to the store. */
  private int seed() {
    List<EventMessage<?>> events = new ArrayList<>();
    for (int i = 0; i < ORDERS; i++) {
      String id = "o-" + i;
      events.add(
          domain(
              "Order",
              id,
              0,
              new OrderPlaced(id, "c-1", "CNY", List.of(new OrderLine("SKU-1", 1, 100)), 100)));
    }
    for (int i = 0; i < ORDERS; i += 2) {
      events.add(domain("Order", "o-" + i, 1, new OrderCancelled("o-" + i, "test")));
    }
    for (int i = 0; i < RECEIPTS; i++) {
      String sku = "SKU-" + (i % SKUS);
      int seq = i / SKUS;
      events.add(domain("Inventory", sku, seq, new StockReceived(sku, 1, null, seq + 1, 0)));
    }
    try (Database db = Database.open(harness.endpoint(), 2, "seeder")) {
      EventStorageEngine engine = new AxonStorage(db).eventStorageEngine();
      for (int from = 0; from < events.size(); from += 500) {
        Transaction tx = db.transactions().startTransaction();
        engine.appendEvents(events.subList(from, Math.min(events.size(), from + 500)));
        tx.commit();
      }
    }
    return events.size();
  }

  private static EventMessage<?> domain(String type, String id, long seq, Object payload) {
    return new GenericDomainEventMessage<>(type, id, seq, payload, Map.of("commandId", "c-" + id));
  }
}
