package io.slotkeeper.api.http.events;

import io.slotkeeper.api.http.auth.BearerAuth;
import io.slotkeeper.api.http.problem.HttpProblems;
import io.slotkeeper.api.http.support.QueryParams;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.stream.EventFilter;
import io.slotkeeper.stream.EventReader;
import io.slotkeeper.stream.EventSubscription;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;

/**
 * {@code /v1/events}: every stored event, as pages and as Server-Sent Events. Both read up to the
 * first gap that may still fill in (see {@link EventReader}), so a subscriber that resumes after
 * its last position sees every later event exactly once, in order.
 */
public final class EventRoutes {

  static final long KEEP_ALIVE_MILLIS = 15_000;

  private final Vertx vertx;
  private final EventReader reader;

  public EventRoutes(Vertx vertx, EventReader reader) {
    this.vertx = vertx;
    this.reader = reader;
  }

  public void mount(Router router, BearerAuth auth) {
    router.get("/v1/events").handler(auth.require(Role.CLIENT)).handler(this::page);
    router.get("/v1/events/stream").handler(auth.require(Role.CLIENT)).handler(this::stream);
  }

  /** The filter of a request: {@code aggregateType} and {@code eventType}, comma-separated. */
  static EventFilter filter(RoutingContext ctx) {
    return EventFilter.of(
        ctx.request().getParam("aggregateType"), ctx.request().getParam("eventType"));
  }

  private void page(RoutingContext ctx) {
    long after = QueryParams.longParam(ctx, "after", 0, 0, Long.MAX_VALUE);
    int limit = QueryParams.intParam(ctx, "limit", 100, 1, EventReader.MAX_LIMIT);
    reader
        .page(after, limit, filter(ctx))
        .onSuccess(
            page -> {
              JsonArray events = new JsonArray();
              page.events().forEach(e -> events.add(e.json()));
              ctx.json(new JsonObject().put("events", events).put("next", page.next()));
            })
        .onFailure(e -> HttpProblems.send(ctx, HttpProblems.from(e)));
  }

  private void stream(RoutingContext ctx) {
    long after = resumeFrom(ctx);
    EventFilter filter = filter(ctx);
    HttpServerResponse response = ctx.response();
    // Admitted (or refused with 429) before anything is written; the first events are written
    // once the first page has been read, after the headers below.
    EventSubscription subscription =
        EventSubscription.start(
            vertx,
            reader,
            after,
            filter,
            EventSubscription.Sink.to(
                response,
                e ->
                    Buffer.buffer(
                        "id: "
                            + e.position()
                            + "\nevent: "
                            + e.type()
                            + "\ndata: "
                            + e.json().encode()
                            + "\n\n")),
            ctx.<Role>get(BearerAuth.ROLE_KEY).name());
    response
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no");
    response.write(": resuming after " + after + "\n\n");
    long keepAlive =
        vertx.setPeriodic(
            KEEP_ALIVE_MILLIS,
            id -> {
              if (!response.ended() && !response.closed()) {
                response.write(": keep-alive\n\n");
              }
            });
    response.closeHandler(
        v -> {
          subscription.cancel();
          vertx.cancelTimer(keepAlive);
        });
  }

  /** {@code Last-Event-ID} (a reconnecting EventSource) wins over {@code ?after=}; default 0. */
  private static long resumeFrom(RoutingContext ctx) {
    String last = ctx.request().getHeader("Last-Event-ID");
    if (last == null || last.isBlank()) {
      return QueryParams.longParam(ctx, "after", 0, 0, Long.MAX_VALUE);
    }
    try {
      long v = Long.parseLong(last.trim());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ApiProblem.invalid(
        "invalid Last-Event-ID", Map.of("Last-Event-ID", "an event position (a whole number)"));
  }
}
