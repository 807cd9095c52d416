package io.slotkeeper.business.jobs;

import io.slotkeeper.business.orders.RefundSnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code refund-settlement}: issues REQUESTED refunds (oldest first, at most {@code batchSize},
 * default 100).
 *
 * <p>The command ID is {@link DeterministicIds#issueRefund(String)}, the same one the HTTP issue
 * route uses, and deliberately not a slot command ID: an operator's issue and the job's issue of
 * one refund are then one command, and the ledger pays it once. Different IDs would still be safe
 * (the aggregate answers an issued refund with a no-op), but one ID makes it visible as a
 * duplicate.
 *
 * <p>Counts: {@code issued}, {@code alreadyIssued} (a duplicate or a no-op: the read table lagged
 * behind an earlier issue), {@code rejected} (the domain refused, e.g. the refund was rejected
 * meanwhile; logged, not thrown, so one refund cannot block the others).
 */
public final class RefundSettlementJob implements JobHandler {

  public static final String NAME = "refund-settlement";

  private static final String REQUESTED =
      "SELECT refund_id, order_id FROM refunds WHERE status = 'REQUESTED'"
          + " ORDER BY requested_at, refund_id LIMIT ?";

  private final CommandService commands;
  private final JobSql sql;

  public RefundSettlementJob(CommandService commands, DataSource readSide) {
    this.commands = commands;
    this.sql = new JobSql(readSide);
  }

  @Override
  public Map<String, Long> run(SlotRun run) {
    int batchSize = JobParams.positiveInt(run, "batchSize", 100);
    Tally tally = new Tally("issued", "alreadyIssued", "rejected");
    for (IssueRefund issue :
        sql.query(
            REQUESTED,
            rs ->
                new IssueRefund(
                    DeterministicIds.issueRefund(rs.getString(1)),
                    rs.getString(2),
                    rs.getString(1)),
            batchSize)) {
      Optional<CommandOutcome<RefundSnapshot>> outcome =
          Commands.sendUnlessRefused(commands, issue, run);
      tally.add(
          outcome
              .map(o -> o.duplicate() || o.result().noop() ? "alreadyIssued" : "issued")
              .orElse("rejected"));
    }
    return tally.toMap();
  }
}
