package io.slotkeeper.operations;

import io.slotkeeper.operations.idempotency.ClaimedOperations;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.OneCommandOperations;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.slotkeeper.operations.inventory.InventoryQueries;
import io.slotkeeper.operations.jobs.JobOperations;
import io.slotkeeper.operations.jobs.JobRunQueries;
import io.slotkeeper.operations.orders.OrderOperations;
import io.slotkeeper.operations.orders.OrderQueries;
import io.slotkeeper.operations.refunds.RefundOperations;
import io.slotkeeper.operations.refunds.RefundQueries;
import io.slotkeeper.operations.schedules.ScheduleOperations;
import io.slotkeeper.operations.schedules.ScheduleQueries;
import io.slotkeeper.operations.support.CommandBridge;
import io.slotkeeper.stream.SlotEvents;
import io.vertx.core.Vertx;

/**
 * The protocol-free operation layer: what HTTP routes and gRPC services both call. Each operation
 * validates a JSON request, runs under the shared idempotency store and answers HTTP-shaped (status
 * + JSON), so the same request over either protocol is the same operation.
 */
public record ApiOperations(
    ClaimedOperations claimed,
    OrderOperations orders,
    InventoryOperations inventory,
    RefundOperations refunds,
    JobOperations jobs,
    ScheduleOperations schedules) {

  /** The operations of one verticle (one event-loop context). */
  public static ApiOperations create(Vertx vertx, OperationsDependencies deps) {
    CommandBridge commands =
        new CommandBridge(vertx, deps.writeModel().batcher(), deps.commandTimeout());
    KeyedAnswers answers = new KeyedAnswers(deps.idempotency(), deps.newKeys(), deps.metrics());
    OneCommandOperations oneCommand =
        new OneCommandOperations(deps.idempotency(), commands, answers);
    ClaimedOperations claimed = new ClaimedOperations(deps.idempotency(), answers);
    JobRunQueries runs = new JobRunQueries(deps.pool());
    ScheduleOperations schedules =
        new ScheduleOperations(
            oneCommand,
            new ScheduleQueries(deps.pool()),
            runs,
            deps.leases(),
            deps.scheduleRules(),
            deps.timers());
    return new ApiOperations(
        claimed,
        new OrderOperations(
            vertx, oneCommand, claimed, new OrderQueries(deps.pool()), deps.fulfilment()),
        new InventoryOperations(oneCommand, new InventoryQueries(deps.pool())),
        new RefundOperations(commands, oneCommand, claimed, new RefundQueries(deps.pool())),
        new JobOperations(
            deps.timers(),
            deps.schedules(),
            schedules,
            deps.ledger(),
            deps.leases(),
            runs,
            new SlotEvents(deps.pool()),
            claimed),
        schedules);
  }
}
