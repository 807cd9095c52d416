package io.slotkeeper.commands.projection;

import io.slotkeeper.events.StorableText;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.ErrorContext;
import org.axonframework.eventhandling.ErrorHandler;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.eventhandling.Segment;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error handler of every event processor: a batch that fails (a handler threw, or its rows or
 * token could not commit) is recorded here with its processor, segment, first event position, error
 * and since when, counted in {@code slotkeeper_projection_errors_total}, and then propagated, so
 * the segment stops at that event, rolls back and is retried by Axon with a back-off; the event is
 * never skipped. A failure is forgotten once the segment's stored token has passed its position
 * ({@link #clearPassed}, from the token table): a transient fault heals by itself and a poison
 * event stays reported until it is dealt with.
 */
public final class ProjectionFailures implements ErrorHandler {

  private static final Logger log = LoggerFactory.getLogger(ProjectionFailures.class);
  private static final int MAX_ERROR = 500;

  /**
   * A batch that fails: its first event (position: global index; {@code sequence}: the hash of its
   * sequence identifier, which decides its segment) and last event position, the latest error, the
   * time of the first failure and the failed attempts since.
   */
  public record Failure(
      String processor,
      int sequence,
      long position,
      long lastPosition,
      String error,
      Instant since,
      long attempts) {

    /** Whether the failed batch belongs to {@code segment}. */
    public boolean in(Segment segment) {
      return segment.matches(sequence);
    }
  }

  // A retry of a batch starts at the same event: its processor and sequence name the failure.
  private record Key(String processor, int sequence) {}

  private final SlotkeeperMetrics metrics;
  private final Clock clock;
  private final Map<Key, Failure> failures = new ConcurrentHashMap<>();

  public ProjectionFailures(SlotkeeperMetrics metrics, Clock clock) {
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public void handleError(ErrorContext context) throws Exception {
    String processor = context.eventProcessor();
    List<? extends EventMessage<?>> events = context.failedEvents();
    int sequence = events.isEmpty() ? 0 : sequenceOf(events.get(0));
    long first = events.isEmpty() ? -1 : position(events.get(0));
    long last = events.isEmpty() ? -1 : position(events.get(events.size() - 1));
    String error = describe(context.error());
    Failure failure =
        failures.merge(
            new Key(processor, sequence),
            new Failure(processor, sequence, first, last, error, clock.instant(), 1),
            (old, now) ->
                new Failure(
                    processor, sequence, first, last, error, old.since(), old.attempts() + 1));
    metrics.projectionError(processor);
    log.error(
        "projection {} cannot apply the events at positions {}..{} (attempt {} since {}); its"
            + " segment stops there and retries: {}",
        processor,
        first,
        last,
        failure.attempts(),
        failure.since(),
        error);
    PropagatingErrorHandler.instance().handleError(context);
  }

  /** The failures not yet passed, of every processor. */
  public List<Failure> current() {
    return List.copyOf(failures.values());
  }

  /** Forgets the segment's failures once its stored token is at or past the failed position. */
  public void clearPassed(String processor, Segment segment, long tokenPosition) {
    failures
        .values()
        .removeIf(
            f -> f.processor().equals(processor) && f.in(segment) && tokenPosition >= f.position());
  }

  /** Forgets every failure of the processor (its tokens were reset). */
  public void clear(String processor) {
    failures.keySet().removeIf(k -> k.processor().equals(processor));
  }

  /**
   * The hash that decides the event's segment: events are sequenced per aggregate (Axon's default
   * policy for these processors), others by their identifier.
   */
  private static int sequenceOf(EventMessage<?> event) {
    Object sequence =
        event instanceof DomainEventMessage
            ? ((DomainEventMessage<?>) event).getAggregateIdentifier()
            : event.getIdentifier();
    return Objects.hashCode(sequence);
  }

  private static long position(EventMessage<?> event) {
    return event instanceof TrackedEventMessage
        ? ((TrackedEventMessage<?>) event).trackingToken().position().orElse(-1)
        : -1;
  }

  /** The error and its root cause, short and storable (a driver message may quote the value). */
  static String describe(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = root == error ? error.toString() : error + "; caused by " + root;
    text = StorableText.sanitize(text);
    return text.length() <= MAX_ERROR ? text : text.substring(0, MAX_ERROR) + "…";
  }
}
