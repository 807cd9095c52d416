package io.slotkeeper.api.http.jobs;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.auth.Role;
import io.slotkeeper.api.http.problem.ApiProblem;
import io.slotkeeper.api.http.problem.Problems;
import io.slotkeeper.api.http.support.ApiResponse;
import io.slotkeeper.api.http.support.IdempotentCommands;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.PathIds;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.api.http.support.RequestFields;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.Slots;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.timers.LedgerQueries;
import io.slotkeeper.timers.RunResult;
import io.slotkeeper.timers.Timers;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Operator API of the scheduled jobs: state, runs, pause/resume, manual trigger and backfill. */
public final class JobRoutes {

  static final int MAX_BACKFILL = 1_000;

  private final Timers timers;
  private final LedgerQueries ledger;
  private final RedisLeases leases;
  private final JobRunQueries runs;
  private final IdempotentCommands idempotent;

  public JobRoutes(
      Timers timers,
      LedgerQueries ledger,
      RedisLeases leases,
      JobRunQueries runs,
      IdempotentCommands idempotent) {
    this.timers = timers;
    this.ledger = ledger;
    this.leases = leases;
    this.runs = runs;
    this.idempotent = idempotent;
  }

  public void mount(Router router, BearerAuth auth) {
    router.get("/v1/jobs").handler(auth.require(Role.OPERATOR)).handler(this::list);
    router.get("/v1/jobs/:job").handler(auth.require(Role.OPERATOR)).handler(this::get);
    router.get("/v1/jobs/:job/runs").handler(auth.require(Role.OPERATOR)).handler(this::runs);
    router
        .post("/v1/jobs/:job/pause")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> pause(ctx, true));
    router
        .post("/v1/jobs/:job/resume")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> pause(ctx, false));
    router.post("/v1/jobs/:job/runs").handler(auth.require(Role.OPERATOR)).handler(this::trigger);
    router
        .post("/v1/jobs/:job/backfill")
        .handler(auth.require(Role.OPERATOR))
        .handler(this::backfill);
  }

  private JobDefinition job(RoutingContext ctx) {
    String name = PathIds.require(ctx, "job");
    return timers.job(name).orElseThrow(() -> ApiProblem.notFound("no job named " + name));
  }

  private void list(RoutingContext ctx) {
    List<Future<JsonObject>> all = new ArrayList<>();
    for (JobDefinition job : timers.jobs().jobs()) {
      all.add(describe(job, 3));
    }
    Future.all(all)
        .onSuccess(
            done -> {
              JsonArray jobs = new JsonArray();
              all.forEach(f -> jobs.add(f.result()));
              ctx.json(new JsonObject().put("jobs", jobs));
            })
        .onFailure(e -> Problems.send(ctx, Problems.from(e)));
  }

  private void get(RoutingContext ctx) {
    describe(job(ctx), 10)
        .onSuccess(ctx::json)
        .onFailure(e -> Problems.send(ctx, Problems.from(e)));
  }

  private Future<JsonObject> describe(JobDefinition job, int lastRuns) {
    Instant now = Instant.now();
    JsonArray next = new JsonArray();
    Instant t = now;
    for (int i = 0; i < 3; i++) {
      Optional<Instant> n = job.schedule().nextAfter(t);
      if (n.isEmpty()) {
        break;
      }
      next.add(n.get().toString());
      t = n.get();
    }
    return Future.all(
            leases.holder(job.name()),
            ledger.paused(job.name()),
            runs.runs(job.name(), Instant.EPOCH, now.plus(Duration.ofDays(1)), lastRuns))
        .map(
            all ->
                new JsonObject()
                    .put("name", job.name())
                    .put("schedule", describe(job.schedule()))
                    .put("zone", job.zone().getId())
                    .put("enabled", job.enabled())
                    .put("paused", all.<Boolean>resultAt(1))
                    .put("catchUp", job.catchUpPolicy().name() + " within " + job.catchUpWindow())
                    .put("overlap", job.overlapPolicy().name())
                    .put("leaseHolder", all.<Optional<String>>resultAt(0).orElse(null))
                    .put("nextSlots", next)
                    .put("lastRuns", all.<JsonArray>resultAt(2)));
  }

  private static String describe(Schedule schedule) {
    return schedule instanceof CronSchedule
        ? "cron " + ((CronSchedule) schedule).expression()
        : "every " + ((io.slotkeeper.scheduler.schedule.IntervalSchedule) schedule).interval();
  }

  private void runs(RoutingContext ctx) {
    JobDefinition job = job(ctx);
    Instant to = instantParam(ctx, "to", Instant.now().plus(Duration.ofDays(1)));
    Instant from = instantParam(ctx, "from", Instant.EPOCH);
    int limit = QueryParams.intParam(ctx, "limit", 100, 1, 1_000);
    runs.runs(job.name(), from, to, limit)
        .onSuccess(list -> ctx.json(new JsonObject().put("job", job.name()).put("runs", list)))
        .onFailure(e -> Problems.send(ctx, Problems.from(e)));
  }

  private void pause(RoutingContext ctx, boolean paused) {
    JobDefinition job = job(ctx);
    String key = IdempotentCommands.requireKey(ctx);
    RequestFields.of(JsonBodies.optionalObject(ctx), Set.of()).throwIfInvalid();
    idempotent.run(
        ctx,
        paused ? "jobs.pause" : "jobs.resume",
        key,
        new JsonObject().put("job", job.name()),
        k ->
            ledger
                .setPaused(job.name(), paused)
                .map(
                    v ->
                        ApiResponse.ok(
                            new JsonObject().put("job", job.name()).put("paused", paused))));
  }

  /** Fires one slot of the schedule now (manual trigger); a slot that ran answers "duplicate". */
  private void trigger(RoutingContext ctx) {
    JobDefinition job = job(ctx);
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.object(ctx);
    RequestFields f = RequestFields.of(body, Set.of("slot"));
    String raw = f.string("slot", 64);
    f.throwIfInvalid();
    Instant slot = parseInstant("slot", raw);
    requireOnSchedule(job, slot);
    idempotent.run(
        ctx,
        "jobs.trigger",
        key,
        new JsonObject().put("job", job.name()).put("body", body),
        k -> fire(job, slot, false).map(r -> ApiResponse.ok(result(r))));
  }

  private void backfill(RoutingContext ctx) {
    JobDefinition job = job(ctx);
    String key = IdempotentCommands.requireKey(ctx);
    JsonObject body = JsonBodies.object(ctx);
    RequestFields f = RequestFields.of(body, Set.of("from", "to", "dryRun"));
    String fromRaw = f.string("from", 64);
    String toRaw = f.string("to", 64);
    Object dry = body.getValue("dryRun");
    if (dry != null && !(dry instanceof Boolean)) {
      f.reject("dryRun", "must be true or false");
    }
    f.throwIfInvalid();
    Instant from = parseInstant("from", fromRaw);
    Instant to = parseInstant("to", toRaw);
    if (to.isBefore(from)) {
      throw ApiProblem.invalid("invalid range", Map.of("to", "must not be before from"));
    }
    List<Instant> slots = Slots.between(job.schedule(), from.minusNanos(1), to, MAX_BACKFILL + 1);
    if (slots.size() > MAX_BACKFILL) {
      throw new ApiProblem(
          422, "Range too large", "at most " + MAX_BACKFILL + " slots per backfill");
    }
    JsonArray listed = new JsonArray();
    slots.forEach(s -> listed.add(s.toString()));
    if (Boolean.TRUE.equals(dry)) {
      ctx.json(new JsonObject().put("job", job.name()).put("dryRun", true).put("slots", listed));
      return;
    }
    idempotent.run(
        ctx,
        "jobs.backfill",
        key,
        new JsonObject().put("job", job.name()).put("body", body),
        k -> {
          Future<JsonArray> done = Future.succeededFuture(new JsonArray());
          for (Instant s : slots) {
            done = done.compose(acc -> fire(job, s, true).map(r -> acc.add(result(r))));
          }
          return done.map(
              results ->
                  ApiResponse.ok(
                      new JsonObject()
                          .put("job", job.name())
                          .put("dryRun", false)
                          .put("runs", results)));
        });
  }

  /** Fires under the highest token the ledger has seen: never stale, never ahead of the holder. */
  private Future<RunResult> fire(JobDefinition job, Instant slot, boolean backfill) {
    return ledger
        .highestToken(job.name())
        .compose(token -> timers.runner().fire(job, slot, token, 1, backfill));
  }

  private static JsonObject result(RunResult r) {
    return new JsonObject()
        .put("slotId", r.slot().slotId())
        .put("slot", r.slot().nominal() == null ? null : r.slot().nominal().toString())
        .put("status", r.slot().status() == null ? null : r.slot().status().name())
        .put("instanceId", r.slot().instanceId())
        .put("attempt", r.slot().attempt())
        .put("outcome", r.outcome().name())
        .put("duplicate", r.outcome() == RunResult.Outcome.DUPLICATE)
        .put("counts", new JsonObject(new java.util.HashMap<>(r.counts())))
        .put("error", r.error());
  }

  private static void requireOnSchedule(JobDefinition job, Instant slot) {
    Optional<Instant> on = job.schedule().nextAfter(slot.minusNanos(1));
    if (on.isEmpty() || !on.get().equals(slot)) {
      throw new ApiProblem(
          422,
          "Not a slot of the schedule",
          slot
              + " is not a slot of "
              + job.name()
              + (on.isPresent() ? "; the next one is " + on.get() : ""));
    }
  }

  private static Instant instantParam(RoutingContext ctx, String name, Instant fallback) {
    String raw = ctx.request().getParam(name);
    return raw == null || raw.isEmpty() ? fallback : parseInstant(name, raw);
  }

  private static Instant parseInstant(String field, String raw) {
    try {
      return Instant.parse(raw);
    } catch (DateTimeParseException e) {
      throw ApiProblem.invalid(
          "invalid " + field, Map.of(field, "an ISO-8601 instant such as 2026-11-29T10:00:00Z"));
    }
  }
}
