package io.slotkeeper.api.http.health;

import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.commands.projection.ProjectionLag;
import io.slotkeeper.commands.projection.StuckSegment;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.slotkeeper.schedules.ProjectedScheduleCatalog;
import io.slotkeeper.timers.PartitionTimers;
import io.slotkeeper.timers.TimerHealth;
import io.slotkeeper.timers.Timers;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.redis.client.RedisAPI;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code /health/live}: the process answers (no I/O, cheap enough for a tight liveness probe).
 * {@code /health/ready}: PostgreSQL and Redis answer (either down: 503, status {@code DOWN}), plus
 * details that do not decide readiness: each projection's lag behind the event store and its
 * segments that do not advance, the timers that stalled or fail here (either: status {@code
 * DEGRADED}, still 200), and the timer partitions held here. A lagging or stuck projection or a
 * stalled job must not take every replica out of the load balancer at once (all replicas read the
 * same store); each has its own alerts.
 */
public final class HealthRoutes {

  private static final long CHECK_TIMEOUT_MS = 2_000;

  /** Above this many events behind, a projection's check reads LAGGING (an alert, not 503). */
  static final long LAGGING_ABOVE = 1_000;

  /** At most this many stalled or failing timers are named in the readiness answer. */
  static final int LISTED_PROBLEMS = 20;

  private final Pool pool;
  private final RedisAPI redis;
  private final WriteModel writeModel;
  private final Timers timers;
  private final ScheduleCatalog schedules;

  public HealthRoutes(
      Pool pool, RedisAPI redis, WriteModel writeModel, Timers timers, ScheduleCatalog schedules) {
    this.pool = pool;
    this.redis = redis;
    this.writeModel = writeModel;
    this.timers = timers;
    this.schedules = schedules;
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
              JsonObject projections = projections();
              JsonObject catalog = scheduleCatalog();
              JsonObject checks =
                  new JsonObject()
                      .put("postgres", status(pg))
                      .put("redis", status(rd))
                      .put("projections", projections)
                      .put("timers", timers)
                      .put("scheduleCatalog", catalog);
              this.timers.partitions().ifPresent(p -> checks.put("partitions", partitions(p)));
              boolean up = pg.succeeded() && rd.succeeded();
              String status =
                  !up
                      ? "DOWN"
                      : degraded(projections)
                              || timersDegraded(timers)
                              || !"UP".equals(catalog.getString("status"))
                          ? "DEGRADED"
                          : "UP";
              ctx.response()
                  .setStatusCode(up ? 200 : 503)
                  .putHeader("Content-Type", "application/json")
                  .end(new JsonObject().put("status", status).put("checks", checks).encode());
            });
  }

  /**
   * This instance's copy of the schedules: {@code UP} while its polls of the read table work,
   * {@code STALE} (readiness DEGRADED) with the failures in a row and the last error when they do
   * not: the timers and the API here then run on schedules as they were at the last good read.
   */
  private JsonObject scheduleCatalog() {
    if (!(schedules instanceof ProjectedScheduleCatalog)) {
      return new JsonObject().put("status", "UP");
    }
    ProjectedScheduleCatalog.Health h = ((ProjectedScheduleCatalog) schedules).health();
    JsonObject j =
        new JsonObject()
            .put("status", h.upToDate() ? "UP" : "STALE")
            .put("lastRead", h.lastRead() == null ? null : h.lastRead().toString());
    if (!h.upToDate()) {
      j.put("failuresInARow", h.failuresInARow()).put("lastError", h.lastError());
    }
    return j;
  }

  // Projections: lag over all segments, and every segment that does not advance (issue 24).

  /**
   * Each processor's lag and status: {@code DEGRADED} with its stuck segments (failing here, or
   * held by no instance) first, else {@code LAGGING} above {@link #LAGGING_ABOVE}, else {@code UP};
   * {@code UNKNOWN} before its tokens are first measured.
   */
  private JsonObject projections() {
    ProjectionLag lag = writeModel.projectionLag();
    Map<String, Long> behind = lag.lag();
    Map<String, JsonArray> stuck = new TreeMap<>();
    for (StuckSegment s : lag.stuck()) {
      stuck.computeIfAbsent(s.processor(), p -> new JsonArray()).add(stuckSegment(s));
    }
    JsonObject processors = new JsonObject();
    for (String name : new TreeSet<>(writeModel.processors().keySet())) {
      Long events = behind.get(name);
      JsonArray segments = stuck.get(name);
      String status =
          segments != null
              ? "DEGRADED"
              : events == null ? "UNKNOWN" : events > LAGGING_ABOVE ? "LAGGING" : "UP";
      JsonObject p = new JsonObject().put("status", status);
      if (events != null) {
        p.put("lagEvents", events);
      }
      if (segments != null) {
        p.put("stuckSegments", segments);
      }
      processors.put(name, p);
    }
    return new JsonObject().put("headPosition", lag.head()).put("processors", processors);
  }

  private static JsonObject stuckSegment(StuckSegment s) {
    JsonObject j =
        new JsonObject()
            .put("segment", s.segment())
            .put("state", s.reason().name())
            .put("position", s.position())
            .put("error", s.error())
            .put("since", s.since().toString());
    if (s.attempts() > 0) {
      j.put("attempts", s.attempts());
    }
    return j;
  }

  /** Whether a projection is DEGRADED (readiness stays 200: every replica would be alike). */
  private static boolean degraded(JsonObject projections) {
    JsonObject processors = projections.getJsonObject("processors");
    return processors.stream()
        .anyMatch(e -> "DEGRADED".equals(((JsonObject) e.getValue()).getString("status")));
  }

  /**
   * The timer partitions on this instance: how many there are, the live instances sharing them,
   * this instance's fair share, the ones it holds, and the last fault of sharing them.
   */
  private static JsonObject partitions(PartitionTimers.Report p) {
    JsonObject j =
        new JsonObject()
            .put("count", p.partitions())
            .put("liveInstances", p.liveInstances())
            .put("share", p.share())
            .put("held", new JsonArray(p.held()));
    p.lastFault().ifPresent(f -> j.put("lastError", fault(f)));
    return j;
  }

  // ---- Timer health: stalled and failing jobs (docs/scheduling.md, "Self-healing") ----

  /**
   * The schedules whose timers run here: how many, how many hold their partition's lease, and how
   * many are {@code STALLED} (this instance holds the lease and fired or recorded no slot for two
   * periods, {@code since} the first slot left behind) or {@code FAILING} (the timer's last
   * maintenance failed); those, by name with their last fault, up to {@value #LISTED_PROBLEMS}
   * ({@code more}: how many beyond). A size that does not grow with the schedules: probes ask
   * often.
   */
  private JsonObject timers() {
    return timerSummary(
        timers.catalog().all().stream().map(JobDefinition::name).toList(), timers::health);
  }

  /** {@link #timers()} of the named schedules with their timers' reports (empty: not hosted). */
  static JsonObject timerSummary(
      List<String> schedules, Function<String, Optional<TimerHealth.Report>> health) {
    int hosted = 0;
    int held = 0;
    int stalled = 0;
    int failing = 0;
    JsonObject problems = new JsonObject();
    for (String name : schedules) {
      Optional<TimerHealth.Report> report = health.apply(name);
      if (report.isEmpty()) {
        continue;
      }
      TimerHealth.Report r = report.get();
      hosted++;
      held += r.held() ? 1 : 0;
      String status = r.stalledSince().isPresent() ? "STALLED" : r.failing() ? "FAILING" : "UP";
      if (status.equals("UP")) {
        continue;
      }
      stalled += status.equals("STALLED") ? 1 : 0;
      failing += status.equals("FAILING") ? 1 : 0;
      if (problems.size() < LISTED_PROBLEMS) {
        problems.put(name, problem(status, r));
      }
    }
    JsonObject j =
        new JsonObject()
            .put("hosted", hosted)
            .put("held", held)
            .put("stalled", stalled)
            .put("failing", failing)
            .put("problems", problems);
    if (stalled + failing > problems.size()) {
      j.put("more", stalled + failing - problems.size());
    }
    return j;
  }

  private static JsonObject problem(String status, TimerHealth.Report r) {
    JsonObject state = new JsonObject().put("status", status).put("held", r.held());
    r.stalledSince().ifPresent(t -> state.put("since", t.toString()));
    r.lastFault().ifPresent(f -> state.put("lastError", fault(f)));
    return state;
  }

  /** A timer's or the partitions' last fault: its step, what, when. */
  private static JsonObject fault(TimerHealth.Fault f) {
    return new JsonObject()
        .put("step", f.step().tag())
        .put("error", f.error())
        .put("at", f.at().toString());
  }

  private static boolean timersDegraded(JsonObject timers) {
    return timers.getInteger("stalled") + timers.getInteger("failing") > 0;
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
