package io.slotkeeper.stream;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.streams.WriteStream;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the event store from a position and hands every event after it, in order and once, to a
 * sink (an SSE response, a gRPC stream). It reads pages from the {@link EventReader} at once while
 * there is more; caught up, it waits (checking every {@value #IDLE_MILLIS} ms, no query) until the
 * reader's one head query per instance sees the store pass its position. It respects the sink's
 * back-pressure, and stops when {@link #cancel()} is called (the subscriber went away). Runs on the
 * caller's context.
 */
public final class EventSubscription {

  /** Where the events go. */
  public interface Sink {
    /** Writes one event; the returned future completes when it was handed to the transport. */
    Future<Void> write(StreamEvent event);

    boolean writeQueueFull();

    void drainHandler(Runnable then);

    /** A sink writing each event, encoded, to a stream (an SSE response, a gRPC response). */
    static <T> Sink to(WriteStream<T> stream, Function<StreamEvent, T> encode) {
      return new Sink() {
        @Override
        public Future<Void> write(StreamEvent event) {
          return stream.write(encode.apply(event));
        }

        @Override
        public boolean writeQueueFull() {
          return stream.writeQueueFull();
        }

        @Override
        public void drainHandler(Runnable then) {
          stream.drainHandler(v -> then.run());
        }
      };
    }
  }

  static final long IDLE_MILLIS = 100;
  static final int PAGE = 500;
  private static final Logger log = LoggerFactory.getLogger(EventSubscription.class);

  private final Vertx vertx;
  private final EventReader reader;
  private final EventFilter filter;
  private final Sink sink;
  private final String principal;
  private long position;
  private boolean cancelled;

  private EventSubscription(
      Vertx vertx,
      EventReader reader,
      long after,
      EventFilter filter,
      Sink sink,
      String principal) {
    this.vertx = vertx;
    this.principal = principal;
    this.reader = reader;
    this.position = after;
    this.filter = filter;
    this.sink = sink;
  }

  /**
   * Starts following the store after {@code after} for {@code principal} (a token's role); throws
   * {@link SubscriberLimitException} when it already holds as many subscriptions as it may. Nothing
   * is written to the sink before this returns.
   */
  public static EventSubscription start(
      Vertx vertx,
      EventReader reader,
      long after,
      EventFilter filter,
      Sink sink,
      String principal) {
    reader.admit(principal);
    reader.watchHead(vertx);
    EventSubscription s = new EventSubscription(vertx, reader, after, filter, sink, principal);
    // Later, not now: a page can be ready at once, and the caller sets its sink up (the SSE
    // response's chunked headers) after this returns.
    vertx.runOnContext(v -> s.pump());
    return s;
  }

  /** Stops; no event is written after this returns. */
  public void cancel() {
    if (!cancelled) {
      cancelled = true;
      reader.release(principal);
    }
  }

  /** The position up to which every event has been considered. */
  public long position() {
    return position;
  }

  /**
   * Caught up: takes the events after the position from the instance's tail when it holds them all,
   * reads pages again when the tail has passed the position without holding them (the subscription
   * fell behind it), waits otherwise.
   */
  private void idle() {
    if (cancelled) {
      return;
    }
    Optional<EventPage> held = reader.fromTail(position, PAGE, filter);
    if (held.isPresent()) {
      deliver(held.get());
    } else if (reader.mayHaveAfter(position)) {
      pump();
    } else {
      vertx.setTimer(IDLE_MILLIS, id -> idle());
    }
  }

  private void pump() {
    if (cancelled) {
      return;
    }
    reader
        .page(position, PAGE, filter)
        .onSuccess(
            page -> {
              if (!cancelled) {
                deliver(page);
              }
            })
        .onFailure(
            e -> {
              log.warn("event subscription: reading the store failed, retrying: {}", e.toString());
              vertx.setTimer(1000, id -> pump());
            });
  }

  /** Writes a page's events, then goes on at once, after the sink drained, or once idle. */
  private void deliver(EventPage page) {
    for (StreamEvent e : page.events()) {
      sink.write(e);
    }
    boolean progressed = page.next() > position;
    position = page.next();
    if (sink.writeQueueFull()) {
      sink.drainHandler(this::idle);
    } else if (progressed) {
      vertx.runOnContext(v -> idle());
    } else {
      vertx.setTimer(IDLE_MILLIS, id -> idle());
    }
  }
}
