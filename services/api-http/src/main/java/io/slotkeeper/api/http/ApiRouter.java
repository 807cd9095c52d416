package io.slotkeeper.api.http;

import io.netty.handler.codec.DecoderException;
import io.slotkeeper.api.http.admin.AdminRoutes;
import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.events.EventRoutes;
import io.slotkeeper.api.http.health.HealthRoutes;
import io.slotkeeper.api.http.inventory.InventoryRoutes;
import io.slotkeeper.api.http.jobs.JobRoutes;
import io.slotkeeper.api.http.limits.RequestTimeouts;
import io.slotkeeper.api.http.orders.OrderRoutes;
import io.slotkeeper.api.http.problem.HttpProblems;
import io.slotkeeper.api.http.refunds.RefundRoutes;
import io.slotkeeper.api.http.schedules.ScheduleRoutes;
import io.slotkeeper.console.ConsoleRoutes;
import io.slotkeeper.operations.ApiOperations;
import io.slotkeeper.operations.OperationsDependencies;
import io.slotkeeper.operations.auth.TokenCheck;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Assembles every route, and the one place where failures become problem+json. */
public final class ApiRouter {

  private static final Logger log = LoggerFactory.getLogger(ApiRouter.class);

  public static final int MAX_BODY_BYTES = 64 * 1024;

  private ApiRouter() {}

  public static Router create(Vertx vertx, HttpApiDependencies deps, RequestTimeouts timeouts) {
    Router router = Router.router(vertx);
    router.route().handler(timeouts::bodyClock);
    // Refuse non-JSON bodies before BodyHandler: it would decode forms and multipart (with their
    // own limits and failure modes) before any route could refuse the media type.
    router.route().handler(ApiRouter::jsonBodiesOnly);
    router.route().handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));

    OperationsDependencies shared = deps.operations();
    BearerAuth auth = new BearerAuth(new TokenCheck(shared.tokens()));
    ApiOperations ops = ApiOperations.create(vertx, shared);

    new HealthRoutes(
            shared.pool(), deps.redis(), shared.writeModel(), shared.timers(), shared.schedules())
        .mount(router);
    router
        .get("/metrics")
        .handler(
            ctx ->
                ctx.response()
                    .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                    .end(deps.metricsScrape().get()));
    String openapi = resource("openapi.yaml");
    router
        .get("/openapi.yaml")
        .handler(ctx -> ctx.response().putHeader("Content-Type", "application/yaml").end(openapi));
    ConsoleRoutes.mount(router);

    new OrderRoutes(ops.orders(), deps.readYourWrites()).mount(router, auth);
    new InventoryRoutes(ops.inventory(), deps.readYourWrites()).mount(router, auth);
    new RefundRoutes(ops.refunds(), deps.readYourWrites()).mount(router, auth);
    new AdminRoutes(vertx, shared.writeModel(), ops.claimed()).mount(router, auth);
    new EventRoutes(vertx, shared.events()).mount(router, auth);
    new JobRoutes(ops.jobs()).mount(router, auth);
    new ScheduleRoutes(ops.schedules(), ops.jobs(), deps.readYourWrites()).mount(router, auth);

    router.route().failureHandler(ApiRouter::failure);
    router.errorHandler(
        404,
        ctx ->
            HttpProblems.send(
                ctx, ApiProblem.notFound("no such resource: " + ctx.request().path())));
    router.errorHandler(
        405,
        ctx ->
            HttpProblems.send(
                ctx,
                new ApiProblem(
                    405,
                    "Method Not Allowed",
                    ctx.request().method() + " is not allowed on " + ctx.request().path())));
    return router;
  }

  private static void jsonBodiesOnly(RoutingContext ctx) {
    String type = ctx.request().getHeader("Content-Type");
    if (type != null && !isJson(type) && mayHaveBody(ctx)) {
      HttpProblems.send(
          ctx, new ApiProblem(415, "Unsupported Media Type", "send the body as application/json"));
      return;
    }
    ctx.next();
  }

  private static boolean isJson(String contentType) {
    String mime = contentType.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    return mime.equals("application/json") || mime.endsWith("+json");
  }

  private static boolean mayHaveBody(RoutingContext ctx) {
    String length = ctx.request().getHeader("Content-Length");
    return ctx.request().getHeader("Transfer-Encoding") != null
        || (length != null && !length.trim().equals("0"));
  }

  private static void failure(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure instanceof HttpClosedException || ctx.response().closed()) {
      // The client went away (mid-body, say): nobody to answer, nothing of ours went wrong.
      log.debug("client gone before its answer: {}", String.valueOf(failure));
      return;
    }
    if (failure instanceof DecoderException) {
      // The HTTP decoder refused the rest of the request (a chunk line ending in a bare LF): the
      // connection cannot carry another request.
      ctx.response().putHeader("Connection", "close");
      HttpProblems.send(
          ctx, ApiProblem.badRequest("the request could not be read: " + failure.getMessage()));
      return;
    }
    if (failure != null) {
      HttpProblems.send(ctx, HttpProblems.from(ctx.failure()));
    } else if (ctx.statusCode() == 413) {
      HttpProblems.send(
          ctx,
          new ApiProblem(
              413, "Payload Too Large", "the body exceeds " + MAX_BODY_BYTES + " bytes"));
    } else {
      int status = ctx.statusCode() < 400 ? 500 : ctx.statusCode();
      HttpProblems.send(
          ctx, new ApiProblem(status, "Error", "the request failed with status " + status));
    }
  }

  private static String resource(String name) {
    try (InputStream in = ApiRouter.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
