package io.slotkeeper.api.http.jobs;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.jobs.JobOperations;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Operator API of the scheduled jobs ({@link JobOperations}). */
public final class JobRoutes {

  private final JobOperations jobs;

  public JobRoutes(JobOperations jobs) {
    this.jobs = jobs;
  }

  public void mount(Router router, BearerAuth auth) {
    router
        .get("/v1/jobs")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> HttpAnswers.json(ctx, jobs.list()));
    router
        .get("/v1/jobs/:job")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> HttpAnswers.json(ctx, jobs.get(ctx.pathParam("job"))));
    router
        .post("/v1/jobs/:job/pause")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> pause(ctx, true));
    router
        .post("/v1/jobs/:job/resume")
        .handler(auth.require(Role.OPERATOR))
        .handler(ctx -> pause(ctx, false));
    mountRuns(router, auth, "/v1/jobs/:job", "job", Role.OPERATOR);
  }

  /**
   * The runs of a schedule under {@code base} (whose path parameter {@code param} names it): read
   * them ({@code readRole}), trigger one slot, backfill a range. Shared by {@code /v1/jobs} and
   * {@code /v1/schedules}.
   */
  public void mountRuns(Router router, BearerAuth auth, String base, String param, Role readRole) {
    mountRuns(router, auth, base, param, readRole, RoutingContext::next);
  }

  /**
   * The same, with {@code ready} run after the role check and before each operation (it calls
   * {@code next()} when the operation may go on).
   */
  public void mountRuns(
      Router router,
      BearerAuth auth,
      String base,
      String param,
      Role readRole,
      Handler<RoutingContext> ready) {
    router
        .get(base + "/runs")
        .handler(auth.require(readRole))
        .handler(ready)
        .handler(ctx -> runs(ctx, param));
    router
        .post(base + "/runs")
        .handler(auth.require(Role.OPERATOR))
        .handler(ready)
        .handler(
            ctx ->
                HttpAnswers.send(
                    ctx,
                    jobs.trigger(
                        HttpAnswers.idempotencyKey(ctx),
                        ctx.pathParam(param),
                        JsonBodies.object(ctx))));
    router
        .post(base + "/backfill")
        .handler(auth.require(Role.OPERATOR))
        .handler(ready)
        .handler(
            ctx ->
                HttpAnswers.send(
                    ctx,
                    jobs.backfill(
                        HttpAnswers.idempotencyKey(ctx),
                        ctx.pathParam(param),
                        JsonBodies.object(ctx))));
  }

  private void runs(RoutingContext ctx, String param) {
    int limit =
        QueryParams.intParam(
            ctx, "limit", JobOperations.DEFAULT_RUNS_LIMIT, 1, JobOperations.MAX_RUNS_LIMIT);
    HttpAnswers.json(
        ctx,
        jobs.runs(
            ctx.pathParam(param),
            ctx.request().getParam("from"),
            ctx.request().getParam("to"),
            limit));
  }

  private void pause(RoutingContext ctx, boolean paused) {
    HttpAnswers.send(
        ctx,
        jobs.pause(
            HttpAnswers.idempotencyKey(ctx),
            ctx.pathParam("job"),
            paused,
            JsonBodies.optionalObject(ctx)));
  }
}
