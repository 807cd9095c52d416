package io.slotkeeper.api.http;

import io.slotkeeper.api.http.support.ReadYourWrites;
import io.slotkeeper.operations.OperationsDependencies;
import io.vertx.redis.client.RedisAPI;
import java.util.function.Supplier;

/** What the HTTP API needs: the operation layer's dependencies, Redis (health) and /metrics. */
public record HttpApiDependencies(
    OperationsDependencies operations,
    RedisAPI redis,
    Supplier<String> metricsScrape,
    ReadYourWrites readYourWrites) {}
