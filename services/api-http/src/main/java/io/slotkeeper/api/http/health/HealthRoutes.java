package io.slotkeeper.api.http.health;

import io.slotkeeper.domain.WriteModel;
import io.slotkeeper.domain.projection.ProjectionLag;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.timers.Timers;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.redis.client.RedisAPI;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * {@code /health/live}: the process answers (no I/O, cheap enough for a tight liveness probe).
 * {@code /health/ready}: PostgreSQL and Redis answer (either down: 503), plus details that do not
 * decide readiness: each projection's lag behind the event store, the leases held here, and the
 * timers that stalled or fail here (status {@code DEGRADED}, still 200). A lagging projection or a
 * stalled job must not take every replica out of the load balancer at once; each has its alert.
 */
public final class HealthRoutes {

  private static final long CHECK_TIMEOUT_MS = 2_000;

  /** Above this many events behind, a projection's check reads LAGGING (an alert, not 503). */
  static final long LAGGING_ABOVE = 1_000;

  private final Pool pool;
  private final RedisAPI redis;
  private final WriteModel writeModel;
  private final Timers timers;

  public HealthRoutes(Pool pool, RedisAPI redis, WriteModel writeModel, Timers timers) {
    this.pool = pool;
    this.redis = redis;
    this.writeModel = writeModel;
    this.timers = timers;
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
              JsonObject timers = timers();
              JsonObject checks =
                  new JsonObject()
                      .put("postgres", status(pg))
                      .put("redis", status(rd))
                      .put("projections", projections())
                      .put("leases", leases())
                      .put("timers", timers);
              boolean up = pg.succeeded() && rd.succeeded();
              String status = !up ? "DOWN" : timersDegraded(timers) ? "DEGRADED" : "UP";
              ctx.response()
                  .setStatusCode(up ? 200 : 503)
                  .putHeader("Content-Type", "application/json")
                  .end(new JsonObject().put("status", status).put("checks", checks).encode());
            });
  }

  private JsonObject projections() {
    ProjectionLag lag = writeModel.projectionLag();
    Map<String, Long> behind = lag.lag();
    JsonObject processors = new JsonObject();
    for (String name : new TreeSet<>(writeModel.processors().keySet())) {
      Long events = behind.get(name);
      processors.put(
          name,
          events == null
              ? new JsonObject().put("status", "ELSEWHERE")
              : new JsonObject()
                  .put("status", events > LAGGING_ABOVE ? "LAGGING" : "UP")
                  .put("lagEvents", events));
    }
    return new JsonObject().put("headPosition", lag.head()).put("processors", processors);
  }

  private JsonObject leases() {
    JsonObject jobs = new JsonObject();
    for (JobDefinition job : timers.jobs().jobs()) {
      JsonObject state = new JsonObject().put("held", false);
      timers
          .heldLease(job.name())
          .ifPresent(l -> state.put("held", true).put("fencingToken", l.fencingToken()));
      jobs.put(job.name(), state);
    }
    return jobs;
  }

  // ---- Timer health: stalled and failing jobs (docs/scheduling.md, "Self-healing") ----

  /**
   * Per job whose timer runs here: {@code UP}; {@code STALLED} (this instance holds the lease and
   * fired or recorded no slot for two periods, {@code since} the first slot left behind); or {@code
   * FAILING} (the timer's last maintenance failed). The last fault, if any, with its step and time.
   */
  private JsonObject timers() {
    JsonObject jobs = new JsonObject();
    for (JobDefinition job : timers.jobs().jobs()) {
      timers
          .health(job.name())
          .ifPresent(
              r -> {
                JsonObject state =
                    new JsonObject()
                        .put(
                            "status",
                            r.stalledSince().isPresent()
                                ? "STALLED"
                                : r.failing() ? "FAILING" : "UP")
                        .put("held", r.held());
                r.stalledSince().ifPresent(t -> state.put("since", t.toString()));
                r.lastFault()
                    .ifPresent(
                        f ->
                            state.put(
                                "lastError",
                                new JsonObject()
                                    .put("step", f.step().tag())
                                    .put("error", f.error())
                                    .put("at", f.at().toString())));
                jobs.put(job.name(), state);
              });
    }
    return jobs;
  }

  private static boolean timersDegraded(JsonObject timers) {
    return timers.stream()
        .anyMatch(e -> !"UP".equals(((JsonObject) e.getValue()).getString("status")));
  }

  // ---- end of timer health ----

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
