package io.slotkeeper.api.grpc;

import io.slotkeeper.grpc.v1.Event;
import io.slotkeeper.grpc.v1.EventServiceGrpcService;
import io.slotkeeper.grpc.v1.ListEventsResponse;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.support.Ranges;
import io.slotkeeper.stream.EventFilter;
import io.slotkeeper.stream.EventReader;
import io.slotkeeper.stream.EventSubscription;
import io.slotkeeper.stream.StreamEvent;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;
import java.util.List;
import java.util.Set;

/**
 * {@code slotkeeper.v1.EventService}: pages and a live stream of the stored events, read by the
 * same {@link EventReader} and {@link EventSubscription} as {@code GET /v1/events} and the SSE
 * stream, so order, gaps and resume semantics are the same.
 */
final class EventGrpcService {

  static final int DEFAULT_LIMIT = 100;

  private EventGrpcService() {}

  static Service create(GrpcCalls calls, Vertx vertx, EventReader reader) {
    ServiceBuilder b =
        Service.service(
            EventServiceGrpcService.SERVICE_NAME, EventServiceGrpcService.SERVICE_DESCRIPTOR);
    calls.unary(
        b,
        EventServiceGrpcService.List,
        Role.CLIENT,
        (r, request) -> {
          long after = Ranges.inRange("after", r.getAfter(), 0, Long.MAX_VALUE);
          int limit = r.getLimit() == 0 ? DEFAULT_LIMIT : r.getLimit();
          Ranges.inRange("limit", limit, 1, EventReader.MAX_LIMIT);
          return reader
              .page(after, limit, filter(r.getAggregateTypesList(), r.getEventTypesList()))
              .map(
                  page -> {
                    ListEventsResponse.Builder out =
                        ListEventsResponse.newBuilder().setNext(page.next());
                    page.events().forEach(e -> out.addEvents(event(e)));
                    return out.build();
                  });
        });
    b.bind(
        EventServiceGrpcService.Subscribe,
        request ->
            request.messageHandler(
                message -> {
                  try {
                    Role role = calls.authorize(request, Role.CLIENT);
                    subscribe(
                        vertx,
                        reader,
                        request,
                        GrpcCalls.decode(EventServiceGrpcService.Subscribe, message),
                        role);
                  } catch (RuntimeException e) {
                    // Bad token, malformed request, a bad position, too many subscriptions.
                    GrpcCalls.fail(request.response(), e);
                  }
                }));
    return b.build();
  }

  private static void subscribe(
      Vertx vertx,
      EventReader reader,
      GrpcServerRequest<io.slotkeeper.grpc.v1.SubscribeRequest, Event> request,
      io.slotkeeper.grpc.v1.SubscribeRequest msg,
      Role role) {
    GrpcServerResponse<io.slotkeeper.grpc.v1.SubscribeRequest, Event> response = request.response();
    long after = Ranges.inRange("after", msg.getAfter(), 0, Long.MAX_VALUE);
    EventSubscription subscription =
        EventSubscription.start(
            vertx,
            reader,
            after,
            filter(msg.getAggregateTypesList(), msg.getEventTypesList()),
            EventSubscription.Sink.to(response, EventGrpcService::event),
            role.name());
    // The client cancelled (RST_STREAM: Vert.x reports it as a GrpcError to the request's error
    // handler, not as an exception) or went away (the connection closed): stop following the store.
    request.exceptionHandler(e -> subscription.cancel());
    response.exceptionHandler(e -> subscription.cancel());
    request.errorHandler(e -> subscription.cancel());
  }

  static EventFilter filter(List<String> aggregateTypes, List<String> eventTypes) {
    return new EventFilter(Set.copyOf(aggregateTypes), Set.copyOf(eventTypes));
  }

  /** The protobuf form of an event; the payload as its JSON text. */
  static Event event(StreamEvent e) {
    Event.Builder b =
        Event.newBuilder()
            .setEventId(e.eventId())
            .setPosition(e.position())
            .setAggregateType(e.aggregateType())
            .setAggregateId(e.aggregateId())
            .setSequence(e.sequence())
            .setType(e.type())
            .setTime(e.time().toString())
            .setPayloadJson(e.payload() == null ? "{}" : e.payload().encode());
    if (e.causationId() != null) {
      b.setCausationId(e.causationId());
    }
    if (e.correlationId() != null) {
      b.setCorrelationId(e.correlationId());
    }
    if (e.traceId() != null) {
      b.setTraceId(e.traceId());
    }
    return b.build();
  }
}
