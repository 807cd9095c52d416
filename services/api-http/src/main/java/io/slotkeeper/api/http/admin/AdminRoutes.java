package io.slotkeeper.api.http.admin;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.support.HttpAnswers;
import io.slotkeeper.api.http.support.JsonBodies;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.idempotency.ClaimedOperations;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.PathIds;
import io.slotkeeper.operations.support.RequestFields;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/** Operator endpoints of the write side: list projections, rebuild one by replay. */
public final class AdminRoutes {

  private final Vertx vertx;
  private final WriteModel writeModel;
  private final ClaimedOperations claimed;

  public AdminRoutes(Vertx vertx, WriteModel writeModel, ClaimedOperations claimed) {
    this.vertx = vertx;
    this.writeModel = writeModel;
    this.claimed = claimed;
  }

  public void mount(Router router, BearerAuth auth) {
    router.get("/v1/admin/projections").handler(auth.require(Role.OPERATOR)).handler(this::list);
    router
        .post("/v1/admin/projections/:name/rebuild")
        .handler(auth.require(Role.OPERATOR))
        .handler(this::rebuild);
  }

  private void list(RoutingContext ctx) {
    ctx.json(
        new JsonObject()
            .put(
                "projections",
                new io.vertx.core.json.JsonArray(
                    writeModel.processors().keySet().stream().sorted().toList())));
  }

  private void rebuild(RoutingContext ctx) {
    String name = PathIds.require("name", ctx.pathParam("name"));
    if (!writeModel.processors().containsKey(name)) {
      throw ApiProblem.notFound("no projection named " + name);
    }
    IdempotencyKey key = KeyedAnswers.require(HttpAnswers.idempotencyKey(ctx));
    RequestFields.of(JsonBodies.optionalObject(ctx), Set.of()).throwIfInvalid();
    HttpAnswers.send(
        ctx,
        claimed.run(
            "projections.rebuild",
            key,
            new JsonObject().put("projection", name),
            ctx.request().path(),
            k ->
                // Stopping and resetting a processor blocks: never on the event loop.
                vertx
                    .executeBlocking(
                        () -> {
                          writeModel.rebuild(name);
                          return name;
                        })
                    .map(
                        n ->
                            new ApiResponse(
                                202,
                                new JsonObject().put("projection", n).put("status", "REBUILDING"),
                                java.util.Map.of()))));
  }
}
