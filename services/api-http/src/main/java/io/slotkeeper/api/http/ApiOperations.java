package io.slotkeeper.api.http;

import io.slotkeeper.api.http.inventory.InventoryOperations;
import io.slotkeeper.api.http.inventory.InventoryQueries;
import io.slotkeeper.api.http.jobs.JobOperations;
import io.slotkeeper.api.http.jobs.JobRunQueries;
import io.slotkeeper.api.http.orders.OrderOperations;
import io.slotkeeper.api.http.orders.OrderQueries;
import io.slotkeeper.api.http.refunds.RefundOperations;
import io.slotkeeper.api.http.refunds.RefundQueries;
import io.slotkeeper.api.http.support.CommandBridge;
import io.slotkeeper.api.http.support.IdempotentCommands;
import io.vertx.core.Vertx;

/**
 * The protocol-free operation layer: what HTTP routes and gRPC services both call. Each operation
 * validates a JSON request, runs under the shared idempotency store and answers HTTP-shaped (status
 * + JSON), so the same request over either protocol is the same operation.
 */
public record ApiOperations(
    IdempotentCommands idempotent,
    OrderOperations orders,
    InventoryOperations inventory,
    RefundOperations refunds,
    JobOperations jobs) {

  /** The operations of one verticle (one event-loop context). */
  public static ApiOperations create(Vertx vertx, HttpApiDependencies deps) {
    CommandBridge commands =
        new CommandBridge(vertx, deps.writeModel().batcher(), deps.commandTimeout());
    IdempotentCommands idempotent =
        new IdempotentCommands(deps.idempotency(), commands, deps.metrics());
    return new ApiOperations(
        idempotent,
        new OrderOperations(vertx, idempotent, new OrderQueries(deps.pool()), deps.fulfilment()),
        new InventoryOperations(idempotent, new InventoryQueries(deps.pool())),
        new RefundOperations(commands, idempotent, new RefundQueries(deps.pool())),
        new JobOperations(
            deps.timers(),
            deps.ledger(),
            deps.leases(),
            new JobRunQueries(deps.pool()),
            idempotent));
  }
}
