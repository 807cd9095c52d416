package io.slotkeeper.operations;

import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.operations.auth.Tokens;
import io.slotkeeper.operations.idempotency.NewKeyLimit;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.stream.EventReader;
import io.slotkeeper.timers.Timers;
import io.vertx.sqlclient.Pool;
import java.time.Duration;

/**
 * What the operation layer and the API adapters (HTTP and gRPC) need from the rest of the service.
 */
public record OperationsDependencies(
    WriteModel writeModel,
    OrderFulfilment fulfilment,
    Timers timers,
    LedgerQueries ledger,
    RedisLeases leases,
    Pool pool,
    IdempotencyStore idempotency,
    Tokens tokens,
    SlotkeeperMetrics metrics,
    Duration commandTimeout,
    NewKeyLimit newKeys,
    EventReader events,
    ScheduleCatalog schedules,
    JobSpecs.Rules scheduleRules) {}
