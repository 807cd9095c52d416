package io.slotkeeper.api.http.schedules;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.jobs.JobRoutes;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.api.http.support.ReadYourWrites;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.jobs.JobOperations;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.schedules.ScheduleOperations;
import io.slotkeeper.operations.schedules.ScheduleOperations.DryRunRequest;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;

/**
 * The schedules ({@link ScheduleOperations}): writes for the operator, reads for both roles; the
 * runs, trigger and backfill of a schedule are the jobs' operations ({@link JobOperations}). A read
 * of a schedule this instance just wrote waits for the read table to show that write ({@link
 * ReadYourWrites}).
 */
public final class ScheduleRoutes {

  private static final String KIND = "schedule";

  private final ScheduleOperations schedules;
  private final JobOperations jobs;
  private final ReadYourWrites fresh;

  public ScheduleRoutes(ScheduleOperations schedules, JobOperations jobs, ReadYourWrites fresh) {
    this.schedules = schedules;
    this.jobs = jobs;
    this.fresh = fresh;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .post("/v1/schedules")
        .handler(auth.require(Role.OPERATOR))
        .handler(
            ctx -> {
              DryRunRequest dry = dryRun(ctx);
              write(
                  ctx,
                  dry,
                  schedules.create(HttpAnswers.idempotencyKey(ctx), JsonBodies.object(ctx), dry));
            });
    router.get("/v1/schedules").handler(auth.require(Role.CLIENT)).handler(this::list);
    router.get("/v1/schedules/:name").handler(auth.require(Role.CLIENT)).handler(this::get);
    router
        .put("/v1/schedules/:name")
        .handler(auth.require(Role.OPERATOR))
        .handler(
            ctx -> {
              DryRunRequest dry = dryRun(ctx);
              write(
                  ctx,
                  dry,
                  schedules.change(
                      HttpAnswers.idempotencyKey(ctx),
                      ctx.pathParam("name"),
                      ctx.request().getHeader("If-Match"),
                      JsonBodies.object(ctx),
                      dry));
            });
    router
        .delete("/v1/schedules/:name")
        .handler(auth.require(Role.OPERATOR))
        .handler(
            ctx ->
                write(
                    ctx,
                    DryRunRequest.NONE,
                    schedules.delete(
                        HttpAnswers.idempotencyKey(ctx),
                        ctx.pathParam("name"),
                        ctx.request().getHeader("If-Match"),
                        JsonBodies.optionalObject(ctx))));
    router
        .post("/v1/schedules/:name/pause")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> pause(ctx, true));
    router
        .post("/v1/schedules/:name/resume")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> pause(ctx, false));
    new JobRoutes(jobs)
        .mountRuns(router, auth, "/v1/schedules/:name", "name", Role.CLIENT, this::written);
    router
        .get("/v1/schedules/:name/runs/:slot/events")
        .handler(auth.require(Role.CLIENT))
        .handler(
            ctx ->
                HttpAnswers.json(
                    ctx, jobs.slotEvents(ctx.pathParam("name"), ctx.pathParam("slot"))));
  }

  /**
   * Before a run, trigger or backfill: a schedule this instance just wrote is run as written (a
   * trigger right after a create or an edit). A read model that does not get there in time answers
   * as it is (the operation then finds the schedule, or not).
   */
  private void written(RoutingContext ctx) {
    String name = ctx.pathParam("name");
    fresh.awaitAcknowledged(KIND, name, () -> schedules.row(name)).onComplete(done -> ctx.next());
  }

  /** The row waited for (this instance's writes, Slotkeeper-Min-Version), then described. */
  private void get(RoutingContext ctx) {
    HttpAnswers.json(
        ctx,
        fresh
            .read(ctx, KIND, "name", schedules::row)
            .compose(schedules::describe)
            .onSuccess(
                s ->
                    ctx.response()
                        .putHeader("ETag", ScheduleOperations.entityTag(s.getLong("version")))));
  }

  /** Answers a write, remembering it (a dry run writes nothing) for the reads that follow. */
  private void write(RoutingContext ctx, DryRunRequest dry, Future<Outcome> outcome) {
    HttpAnswers.send(ctx, dry.dryRun() ? outcome : fresh.remember(outcome, KIND, "name", false));
  }

  private void list(RoutingContext ctx) {
    int limit =
        QueryParams.intParam(
            ctx, "limit", ScheduleOperations.DEFAULT_LIMIT, 1, ScheduleOperations.MAX_LIMIT);
    HttpAnswers.json(
        ctx,
        schedules.list(ctx.request().getParam("state"), ctx.request().getParam("after"), limit));
  }

  private void pause(RoutingContext ctx, boolean paused) {
    write(
        ctx,
        DryRunRequest.NONE,
        schedules.pause(
            HttpAnswers.idempotencyKey(ctx),
            ctx.pathParam("name"),
            ctx.request().getHeader("If-Match"),
            JsonBodies.optionalObject(ctx),
            paused));
  }

  /** {@code ?dryRun=true&hours=N}: compute, write nothing. */
  private static DryRunRequest dryRun(RoutingContext ctx) {
    String raw = ctx.request().getParam("dryRun");
    if (raw == null || raw.equals("false")) {
      return DryRunRequest.NONE;
    }
    if (!raw.equals("true")) {
      throw ApiProblem.invalid("invalid dryRun", Map.of("dryRun", "true or false"));
    }
    int hours =
        QueryParams.intParam(
            ctx,
            "hours",
            ScheduleOperations.DEFAULT_DRY_RUN_HOURS,
            1,
            ScheduleOperations.MAX_DRY_RUN_HOURS);
    return new DryRunRequest(true, hours);
  }
}
