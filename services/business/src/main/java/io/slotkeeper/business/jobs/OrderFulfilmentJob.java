package io.slotkeeper.business.jobs;

import io.slotkeeper.business.fulfilment.FulfilmentResult;
import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.events.orders.OrderStatus;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code order-fulfilment}: runs the fulfilment flow for NEW orders (oldest first, at most {@code
 * batchSize}, default 100), then resumes orders stuck in PROCESSING for longer than {@code
 * stuckAfter} (default PT5M).
 *
 * <p>The flow's commands take their IDs from the order and the step, not from the slot: whichever
 * slot, instance or operator call runs an order, its steps apply once. The orders read table may
 * lag, so an order already finished can be listed again; its flow then sends nothing.
 *
 * <p>Counts: {@code processed} (orders run), {@code completed} and {@code failed} (their final
 * state), {@code errors} (runs that threw; the order stays for the next slot or for recovery),
 * {@code recovered} (stuck orders brought to a final state).
 */
public final class OrderFulfilmentJob implements JobHandler {

  public static final String NAME = "order-fulfilment";

  private static final Logger log = LoggerFactory.getLogger(OrderFulfilmentJob.class);
  private static final String NEW_ORDERS =
      "SELECT order_id FROM orders WHERE status = 'NEW' ORDER BY created_at, order_id LIMIT ?";

  private final OrderFulfilment fulfilment;
  private final JobSql sql;

  public OrderFulfilmentJob(OrderFulfilment fulfilment, DataSource readSide) {
    this.fulfilment = fulfilment;
    this.sql = new JobSql(readSide);
  }

  @Override
  public Map<String, Long> run(SlotRun run) {
    int batchSize = JobParams.positiveInt(run, "batchSize", 100);
    Duration stuckAfter =
        JobParams.positiveDuration(run, "stuckAfter", OrderFulfilment.DEFAULT_STUCK_AFTER);
    Tally tally = new Tally("processed", "completed", "failed", "errors", "recovered");

    List<String> orderIds = sql.query(NEW_ORDERS, rs -> rs.getString(1), batchSize);
    // Start all, then wait: the fulfilment executor bounds the parallelism.
    List<CompletableFuture<FulfilmentResult>> runs =
        orderIds.stream().map(fulfilment::process).toList();
    for (int i = 0; i < runs.size(); i++) {
      try {
        FulfilmentResult result = Commands.join(runs.get(i));
        tally.add("processed");
        if (result.status() == OrderStatus.COMPLETED) {
          tally.add("completed");
        } else if (result.status() == OrderStatus.FAILED) {
          tally.add("failed");
        }
      } catch (RuntimeException e) {
        // One order must not hold the others back; its commands keep their IDs for the next run.
        log.warn("slot {}: fulfilment of order {} failed", run.slotId(), orderIds.get(i), e);
        tally.add("errors");
      }
    }

    for (FulfilmentResult result : Commands.join(fulfilment.recoverStuck(stuckAfter))) {
      if (result.status() != OrderStatus.PROCESSING) {
        tally.add("recovered");
      }
    }
    return tally.toMap();
  }
}
