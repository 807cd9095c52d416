package io.slotkeeper.api.http.schedules;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.jobs.JobRoutes;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.jobs.JobOperations;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.schedules.ScheduleOperations;
import io.slotkeeper.operations.schedules.ScheduleOperations.DryRunRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;

/**
 * The schedules ({@link ScheduleOperations}): writes for the operator, reads for both roles; the
 * runs, trigger and backfill of a schedule are the jobs' operations ({@link JobOperations}).
 */
public final class ScheduleRoutes {

  private final ScheduleOperations schedules;
  private final JobOperations jobs;

  public ScheduleRoutes(ScheduleOperations schedules, JobOperations jobs) {
    this.schedules = schedules;
    this.jobs = jobs;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .post("/v1/schedules")
        .handler(auth.require(Role.OPERATOR))
        .handler(
            ctx ->
                HttpAnswers.send(
                    ctx,
                    schedules.create(
                        HttpAnswers.idempotencyKey(ctx), JsonBodies.object(ctx), dryRun(ctx))));
    router.get("/v1/schedules").handler(auth.require(Role.CLIENT)).handler(this::list);
    router
        .get("/v1/schedules/:name")
        .handler(auth.require(Role.CLIENT))
        .handler(
            ctx ->
                HttpAnswers.json(
                    ctx,
                    schedules
                        .get(ctx.pathParam("name"))
                        .onSuccess(
                            s ->
                                ctx.response()
                                    .putHeader(
                                        "ETag",
                                        ScheduleOperations.entityTag(s.getLong("version"))))));
    router
        .put("/v1/schedules/:name")
        .handler(auth.require(Role.OPERATOR))
        .handler(
            ctx ->
                HttpAnswers.send(
                    ctx,
                    schedules.change(
                        HttpAnswers.idempotencyKey(ctx),
                        ctx.pathParam("name"),
                        ctx.request().getHeader("If-Match"),
                        JsonBodies.object(ctx),
                        dryRun(ctx))));
    router
        .delete("/v1/schedules/:name")
        .handler(auth.require(Role.OPERATOR))
        .handler(
            ctx ->
                HttpAnswers.send(
                    ctx,
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
    new JobRoutes(jobs).mountRuns(router, auth, "/v1/schedules/:name", "name", Role.CLIENT);
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
    HttpAnswers.send(
        ctx,
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
