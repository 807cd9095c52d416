package io.slotkeeper.business.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.slots.SlotRun;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** order-fulfilment on PostgreSQL: NEW orders are fulfilled once, stuck ones are resumed. */
class OrderFulfilmentJobIT {

  private static final Instant NOMINAL = Instant.parse("2026-03-01T10:00:00Z");

  private JobsHarness harness;
  private OrderFulfilmentJob job;

  @BeforeEach
  void setUp() {
    harness = new JobsHarness("job-fulfilment");
    job = new OrderFulfilmentJob(harness.fulfilment(), harness.dataSource());
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private void place(String orderId, int qty) {
    harness.send(
        new PlaceOrder(
            "place-" + orderId, orderId, "c-1", "CNY", List.of(new OrderLine("A", qty, 100))));
  }

  @Test
  void fulfilsNewOrdersOnceEvenWhenTheSlotRunsAgain() throws Exception {
    harness.send(new ReceiveStock("recv-A", "A", 10, "delivery"));
    place("o-1", 2);
    place("o-2", 3);
    place("o-3", 50); // more than the stock: the flow fails it
    harness.awaitLong(3, "SELECT count(*) FROM orders WHERE status = 'NEW'");
    SlotRun slot = JobsHarness.slot(OrderFulfilmentJob.NAME, NOMINAL, Map.of());

    assertThat(job.run(slot))
        .containsExactly(
            Map.entry("processed", 3L),
            Map.entry("completed", 2L),
            Map.entry("failed", 1L),
            Map.entry("errors", 0L),
            Map.entry("recovered", 0L));
    harness.awaitLong(2, "SELECT count(*) FROM orders WHERE status = 'COMPLETED'");
    harness.awaitLong(1, "SELECT count(*) FROM orders WHERE status = 'FAILED'");
    harness.awaitLong(5, "SELECT on_hand FROM inventory WHERE sku = 'A'");
    long events = harness.allEvents();

    assertThat(job.run(slot)).containsEntry("processed", 0L).containsEntry("completed", 0L);
    assertThat(harness.allEvents()).isEqualTo(events);
    assertThat(harness.events("OrderCompleted")).isEqualTo(2);
  }

  @Test
  void resumesAnOrderStuckInProcessing() throws Exception {
    harness.send(new ReceiveStock("recv-A", "A", 10, "delivery"));
    place("o-9", 4);
    // A crash right after the first step: PROCESSING, nothing reserved.
    harness.send(new StartOrderProcessing("start-o-9", "o-9"));
    harness.awaitLong(1, "SELECT count(*) FROM orders WHERE status = 'PROCESSING'");
    Thread.sleep(50); // older than stuckAfter below

    Map<String, Long> counts =
        job.run(
            JobsHarness.slot(OrderFulfilmentJob.NAME, NOMINAL, Map.of("stuckAfter", "PT0.01S")));

    assertThat(counts).containsEntry("processed", 0L).containsEntry("recovered", 1L);
    harness.awaitLong(1, "SELECT count(*) FROM orders WHERE status = 'COMPLETED'");
    assertThat(harness.events("OrderCompleted")).isEqualTo(1);
  }
}
