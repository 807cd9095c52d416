package io.slotkeeper.api.http.health;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.redis.client.RedisAPI;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code /health/live} (the process answers) and {@code /health/ready} (its stores answer). */
public final class HealthRoutes {

  private static final long CHECK_TIMEOUT_MS = 2_000;

  private final Pool pool;
  private final RedisAPI redis;

  public HealthRoutes(Pool pool, RedisAPI redis) {
    this.pool = pool;
    this.redis = redis;
  }

  public void mount(Router router) {
    router.get("/health/live").handler(ctx -> ctx.json(new JsonObject().put("status", "UP")));
    router.get("/health/ready").handler(this::ready);
  }

  private void ready(RoutingContext ctx) {
    Future<String> pg = check(pool.query("SELECT 1").execute().map("UP"));
    Future<String> rd = check(redis.ping(List.of()).map("UP"));
    Future.join(pg, rd)
        .onComplete(
            done -> {
              JsonObject checks =
                  new JsonObject().put("postgres", status(pg)).put("redis", status(rd));
              boolean up = pg.succeeded() && rd.succeeded();
              ctx.response()
                  .setStatusCode(up ? 200 : 503)
                  .putHeader("Content-Type", "application/json")
                  .end(
                      new JsonObject()
                          .put("status", up ? "UP" : "DOWN")
                          .put("checks", checks)
                          .encode());
            });
  }

  private static Future<String> check(Future<String> probe) {
    return probe.timeout(CHECK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  private static JsonObject status(Future<String> probe) {
    return probe.succeeded()
        ? new JsonObject().put("status", "UP")
        : new JsonObject()
            .put("status", "DOWN")
            .put("error", String.valueOf(probe.cause().getMessage()));
  }
}
