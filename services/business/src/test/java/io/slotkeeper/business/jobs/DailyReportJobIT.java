package io.slotkeeper.business.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.slots.SlotRun;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** daily-report on PostgreSQL: one report per slot, with the numbers of its period. */
class DailyReportJobIT {

  private JobsHarness harness;

  @BeforeEach
  void setUp() {
    harness = new JobsHarness("job-report");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private String body(String path) {
    return harness.queryString("SELECT body #>> '{" + path + "}' FROM reports");
  }

  @Test
  void aSlotRunTwiceWritesOneReportWithThePeriodsNumbers() {
    harness.send(new ReceiveStock("recv-A", "A", 10, "delivery"));
    harness.send(new ReceiveStock("recv-B", "B", 5, "delivery"));
    harness.send(
        new PlaceOrder("p1", "o-1", "c-1", "CNY", List.of(new OrderLine("A", 2, 150)))); // 300
    harness.send(new StartOrderProcessing("s1", "o-1"));
    harness.send(new CompleteOrder("c1", "o-1"));
    harness.send(new PlaceOrder("p2", "o-2", "c-1", "USD", List.of(new OrderLine("B", 1, 70))));
    String refundId = DeterministicIds.refundId("o-1", "k");
    harness.send(new RequestRefund("r1", "o-1", refundId, 120, "broken"));
    harness.send(new IssueRefund("i1", "o-1", refundId));
    harness.awaitLong(1, "SELECT count(*) FROM refunds WHERE status = 'ISSUED'");
    harness.awaitLong(1, "SELECT count(*) FROM orders WHERE status = 'COMPLETED'");
    harness.awaitLong(15, "SELECT coalesce(sum(on_hand), 0) FROM inventory");
    // A completed order from before the period: not in this report.
    harness.execute(
        "INSERT INTO orders (order_id, customer_id, amount_cents, currency, items, status,"
            + " version, last_position, created_at, updated_at) VALUES ('old', 'c', 999, 'CNY',"
            + " '[]', 'COMPLETED', 3, 0, now() - interval '3 days', now() - interval '3 days')");

    Instant nominal = Instant.now().plus(1, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.SECONDS);
    SlotRun slot = JobsHarness.slot(DailyReportJob.NAME, nominal, Map.of());
    DailyReportJob job = new DailyReportJob(harness.dataSource());

    assertThat(job.run(slot)).isEqualTo(Map.of("reports", 1L));
    assertThat(job.run(slot)).isEqualTo(Map.of("reports", 0L));

    assertThat(harness.queryLong("SELECT count(*) FROM reports")).isEqualTo(1);
    assertThat(harness.queryString("SELECT slot_id FROM reports")).isEqualTo(slot.slotId());
    assertThat(
            harness.queryLong(
                "SELECT extract(epoch FROM period_end - period_start)::bigint FROM reports"))
        .isEqualTo(86_400);
    assertThat(body("orders,placed")).isEqualTo("2");
    assertThat(body("orders,revenueCents")).isEqualTo("{\"CNY\": 300}");
    assertThat(body("refunds,issued")).isEqualTo("1");
    assertThat(body("refunds,amountCents")).isEqualTo("{\"CNY\": 120}");
    assertThat(body("stock,skus")).isEqualTo("2");
    assertThat(body("stock,onHand")).isEqualTo("15");
  }

  @Test
  void anEmptyPeriodStillYieldsOneReportOfZeros() {
    Instant nominal = Instant.parse("2026-03-01T16:05:00Z");
    DailyReportJob job = new DailyReportJob(harness.dataSource());

    assertThat(job.run(JobsHarness.slot(DailyReportJob.NAME, nominal, Map.of("period", "PT1H"))))
        .isEqualTo(Map.of("reports", 1L));

    assertThat(body("orders,placed")).isEqualTo("0");
    assertThat(body("orders,revenueCents")).isEqualTo("{}");
    assertThat(body("refunds,issued")).isEqualTo("0");
    // Epoch seconds: independent of the session's time zone.
    assertThat(harness.queryLong("SELECT extract(epoch FROM period_start)::bigint FROM reports"))
        .isEqualTo(nominal.minusSeconds(3600).getEpochSecond());
  }
}
