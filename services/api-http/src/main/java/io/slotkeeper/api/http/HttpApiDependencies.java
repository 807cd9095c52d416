package io.slotkeeper.api.http;

import io.slotkeeper.api.http.auth.Tokens;
import io.slotkeeper.domain.WriteModel;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.timers.LedgerQueries;
import io.slotkeeper.timers.Timers;
import io.vertx.redis.client.RedisAPI;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.function.Supplier;

/** What the HTTP API needs from the rest of the service. */
public record HttpApiDependencies(
    WriteModel writeModel,
    Timers timers,
    LedgerQueries ledger,
    RedisLeases leases,
    Pool pool,
    RedisAPI redis,
    IdempotencyStore idempotency,
    Tokens tokens,
    SlotkeeperMetrics metrics,
    Supplier<String> metricsScrape,
    Duration commandTimeout,
    io.slotkeeper.stream.EventReader events,
    io.slotkeeper.api.http.support.ReadYourWrites readYourWrites) {}
