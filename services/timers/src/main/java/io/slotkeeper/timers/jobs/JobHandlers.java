package io.slotkeeper.timers.jobs;

import io.slotkeeper.domain.WriteModel;
import io.slotkeeper.timers.JobHandler;
import java.util.Map;
import javax.sql.DataSource;

/** The handlers of slotkeeper's shipped jobs, by job name (the names of the jobs file). */
public final class JobHandlers {

  private JobHandlers() {}

  /**
   * The handlers of the five shipped jobs on one write model and one database, plus {@link NoopJob}
   * ({@code handler: noop}), the benchmark and diagnostic handler that does nothing.
   */
  public static Map<String, JobHandler> standard(WriteModel writeModel, DataSource dataSource) {
    return Map.of(
        OrderFulfilmentJob.NAME,
        new OrderFulfilmentJob(writeModel.fulfilment(), dataSource),
        RefundSettlementJob.NAME,
        new RefundSettlementJob(writeModel.commands(), dataSource),
        InventorySyncJob.NAME,
        new InventorySyncJob(writeModel.commands(), dataSource),
        DailyReportJob.NAME,
        new DailyReportJob(dataSource),
        RetentionCleanupJob.NAME,
        new RetentionCleanupJob(dataSource),
        NoopJob.NAME,
        new NoopJob());
  }
}
