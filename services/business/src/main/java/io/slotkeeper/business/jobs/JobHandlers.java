package io.slotkeeper.business.jobs;

import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.slots.JobHandler;
import java.util.Map;
import javax.sql.DataSource;

/** The handlers of slotkeeper's shipped jobs, by job name (the names of the jobs file). */
public final class JobHandlers {

  private JobHandlers() {}

  /**
   * The handlers of the five shipped jobs on one write model's commands, its fulfilment flow and
   * one database, plus {@link NoopJob} ({@code handler: noop}), the benchmark and diagnostic
   * handler that does nothing.
   */
  public static Map<String, JobHandler> standard(
      CommandService commands, OrderFulfilment fulfilment, DataSource dataSource) {
    return Map.of(
        OrderFulfilmentJob.NAME,
        new OrderFulfilmentJob(fulfilment, dataSource),
        RefundSettlementJob.NAME,
        new RefundSettlementJob(commands, dataSource),
        InventorySyncJob.NAME,
        new InventorySyncJob(commands, dataSource),
        DailyReportJob.NAME,
        new DailyReportJob(dataSource),
        RetentionCleanupJob.NAME,
        new RetentionCleanupJob(dataSource),
        NoopJob.NAME,
        new NoopJob());
  }
}
