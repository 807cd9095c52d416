package io.slotkeeper.business.orders;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.ConcurrentSend;
import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.RefundStatus;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The refundable balance under concurrent requests from two instances, on PostgreSQL. */
class RefundWriteModelIT {

  private WriteModelHarness harness;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("refunds");
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private static void completedOrder(WriteModel model, String orderId) {
    model
        .commands()
        .send(
            new PlaceOrder(
                "place-" + orderId, orderId, "c-1", "CNY", List.of(new OrderLine("S", 1, 100))))
        .join();
    model.commands().send(new StartOrderProcessing("start-" + orderId, orderId)).join();
    model.commands().send(new CompleteOrder("complete-" + orderId, orderId)).join();
  }

  @Test
  void thirtyConcurrentRefundsOnTwoInstancesNeverExceedTheAmount() throws Exception {
    WriteModel a = harness.start("a", true);
    WriteModel b = harness.start("b", false);
    completedOrder(a, "o-1");

    List<RequestRefund> requests =
        IntStream.range(0, 30)
            .mapToObj(
                i ->
                    new RequestRefund(
                        "rr-" + i, "o-1", DeterministicIds.refundId("o-1", "key-" + i), 10, "x"))
            .toList();
    Map<String, Integer> tally = ConcurrentSend.sendAll(List.of(a, b), requests);

    assertThat(tally).isEqualTo(Map.of("applied", 10, "RuleViolationException", 20));
    harness.awaitLong(10, "SELECT count(*) FROM refunds WHERE order_id = 'o-1'");
    assertThat(harness.queryLong("SELECT sum(amount_cents) FROM refunds")).isEqualTo(100);
    assertThat(harness.queryLong("SELECT count(*) FROM refunds WHERE status = 'REQUESTED'"))
        .isEqualTo(10);
  }

  @Test
  void issuingTwiceUnderNewCommandIdsPaysOnce() {
    WriteModel a = harness.start("a", true);
    completedOrder(a, "o-2");
    String refundId = DeterministicIds.refundId("o-2", "k");
    a.commands().send(new RequestRefund("rr-1", "o-2", refundId, 30, "broken")).join();
    CommandOutcome<RefundSnapshot> first =
        a.commands().<RefundSnapshot>send(new IssueRefund("iss-1", "o-2", refundId)).join();
    CommandOutcome<RefundSnapshot> second =
        a.commands().<RefundSnapshot>send(new IssueRefund("iss-2", "o-2", refundId)).join();

    assertThat(first.result().noop()).isFalse();
    assertThat(second.result().noop()).isTrue();
    assertThat(second.result().status()).isEqualTo(RefundStatus.ISSUED);
    assertThat(second.result().refundableCents()).isEqualTo(70);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE payload_type LIKE '%RefundIssued'"))
        .isEqualTo(1);
    harness.awaitString(
        "ISSUED", "SELECT status FROM refunds WHERE refund_id = '" + refundId + "'");
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM refunds WHERE issued_at IS NOT NULL AND rejected_at IS NULL"))
        .isEqualTo(1);
  }
}
