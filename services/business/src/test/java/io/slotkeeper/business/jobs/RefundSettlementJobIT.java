package io.slotkeeper.business.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.RejectRefund;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.slots.SlotRun;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** refund-settlement on PostgreSQL: a refund is paid once, whoever issues it and how often. */
class RefundSettlementJobIT {

  private static final SlotRun SLOT =
      JobsHarness.slot(RefundSettlementJob.NAME, Instant.parse("2026-03-01T10:00:30Z"), Map.of());

  private JobsHarness harness;
  private RefundSettlementJob job;

  @BeforeEach
  void setUp() {
    harness = new JobsHarness("job-refunds");
    job = new RefundSettlementJob(harness.model().commands(), harness.dataSource());
    harness.send(new PlaceOrder("place", "o-1", "c-1", "CNY", List.of(new OrderLine("A", 1, 100))));
    harness.send(new StartOrderProcessing("start", "o-1"));
    harness.send(new CompleteOrder("complete", "o-1"));
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private String request(String key, long cents) {
    String refundId = DeterministicIds.refundId("o-1", key);
    harness.send(new RequestRefund("req-" + key, "o-1", refundId, cents, "broken"));
    return refundId;
  }

  @Test
  void issuesARequestedRefundOnceWhenTheSlotRunsTwice() {
    request("k1", 30);
    harness.awaitLong(1, "SELECT count(*) FROM refunds WHERE status = 'REQUESTED'");

    Map<String, Long> first = job.run(SLOT);
    // No wait: the read table may still say REQUESTED, and the second run must not pay again.
    Map<String, Long> second = job.run(SLOT);

    assertThat(first)
        .containsExactly(
            Map.entry("issued", 1L), Map.entry("alreadyIssued", 0L), Map.entry("rejected", 0L));
    assertThat(second).containsEntry("issued", 0L).containsEntry("rejected", 0L);
    assertThat(harness.events("RefundIssued")).isEqualTo(1);
    harness.awaitLong(1, "SELECT count(*) FROM refunds WHERE status = 'ISSUED'");
  }

  @Test
  void anIssueThroughHttpFirstIsRecognisedAsTheSameCommand() {
    String refundId = request("k2", 40);
    // What RefundRoutes sends for POST /v1/refunds/{id}/issue.
    String httpCommandId = DeterministicIds.forStep(refundId, "issue", "");
    harness.send(new IssueRefund(httpCommandId, "o-1", refundId));
    harness.awaitLong(1, "SELECT count(*) FROM refunds WHERE status = 'ISSUED'");
    // Play a lagging read table: the job still sees the refund as REQUESTED.
    harness.execute("UPDATE refunds SET status = 'REQUESTED'");

    assertThat(job.run(SLOT))
        .containsExactly(
            Map.entry("issued", 0L), Map.entry("alreadyIssued", 1L), Map.entry("rejected", 0L));
    assertThat(harness.events("RefundIssued")).isEqualTo(1);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM command_ledger WHERE command_type LIKE '%IssueRefund'"))
        .isEqualTo(1);
  }

  @Test
  void aRefundRejectedMeanwhileIsCountedNotThrown() {
    String rejected = request("k3", 20);
    request("k4", 10);
    harness.send(new RejectRefund("rej-k3", "o-1", rejected, "no"));
    harness.awaitLong(1, "SELECT count(*) FROM refunds WHERE status = 'REJECTED'");
    harness.awaitLong(1, "SELECT count(*) FROM refunds WHERE status = 'REQUESTED'");
    harness.execute("UPDATE refunds SET status = 'REQUESTED'"); // lagging read table

    assertThat(job.run(SLOT))
        .containsExactly(
            Map.entry("issued", 1L), Map.entry("alreadyIssued", 0L), Map.entry("rejected", 1L));
    assertThat(harness.events("RefundIssued")).isEqualTo(1);
  }
}
