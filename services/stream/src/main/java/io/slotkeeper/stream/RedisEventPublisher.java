package io.slotkeeper.stream;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.axon.CommitQueues;
import io.slotkeeper.platform.axon.EventPositions;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.serialization.Serializer;

/**
 * Fans every stored event out to a Redis stream ({@code slotkeeper:events} by default), at least
 * once. It is a tracking event handler in its own processing group: its position is Axon's token in
 * {@code token_entry}, committed after the batch's appends. A failed append throws, the batch rolls
 * back and is retried (a batch's appends go out as one pipeline when it prepares to commit), so an
 * event can be appended twice (after a crash between the append and the token commit) but never
 * skipped; consumers deduplicate by {@code eventId}.
 *
 * <p>Axon calls it on its processor threads, never on an event loop, so the blocking wait for Redis
 * is allowed here.
 */
@ProcessingGroup(RedisEventPublisher.NAME)
public class RedisEventPublisher {

  public static final String NAME = "redis-event-publisher";
  public static final String DEFAULT_STREAM = "slotkeeper:events";
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static final String BATCH = RedisEventPublisher.class.getName() + ".batch";

  private final Redis redis;
  private final String stream;
  private final int maxLen;
  private final EventPositions positions;
  // The event store's own: a stored payload's JSON is taken as it is (a serializer hands its own
  // form over unchanged, another one's is deserialized and serialized again).
  private final Serializer serializer = AxonStorage.eventSerializer();

  /**
   * @param maxLen the stream is trimmed to about this many entries ({@code MAXLEN ~})
   * @param positions where each event's global position is read (never the token's position)
   */
  public RedisEventPublisher(Redis redis, String stream, int maxLen, EventPositions positions) {
    this.redis = redis;
    this.stream = stream;
    this.maxLen = maxLen;
    this.positions = positions;
  }

  @EventHandler
  void on(EventMessage<?> message) {
    Event event = of(message, positions.of(message.getIdentifier()), serializer);
    Request xadd =
        Request.cmd(Command.XADD)
            .arg(stream)
            .arg("MAXLEN")
            .arg("~")
            .arg(maxLen)
            .arg("*")
            .arg("eventId")
            .arg(message.getIdentifier())
            .arg("position")
            .arg(event.fields().position())
            .arg("type")
            .arg(event.fields().type())
            .arg("aggregateType")
            .arg(String.valueOf(event.fields().aggregateType()))
            .arg("aggregateId")
            .arg(String.valueOf(event.fields().aggregateId()))
            .arg("json")
            .arg(event.json());
    if (!CurrentUnitOfWork.isStarted()) {
      send(List.of(xadd));
      return;
    }
    // One pipeline per batch: the appends are queued and sent, in order on one connection, when
    // the batch prepares to commit; a failure rolls the batch (and its token) back.
    CommitQueues.<List<Request>>current(BATCH, ArrayList::new, this::send).add(xadd);
  }

  private void send(List<Request> appends) {
    if (appends.isEmpty()) {
      return;
    }
    try {
      redis.batch(appends).await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Redis did not accept " + appends.size() + " events within " + TIMEOUT, e);
    } catch (RuntimeException | VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      // Future.await rethrows the failure as it is: a failed pipeline's is the client's ErrorType,
      // a Throwable that is neither an Exception nor an Error (a connection reset mid-batch fails
      // it with "ERR [i] ... Connection reset"); a checked one may come undeclared, and the client
      // may throw an AssertionError. Axon's unit of work and work package catch Exceptions only:
      // anything else thrown at prepare-commit ended the work package's task without a rollback,
      // an error handler call or a log, and the processor kept the segment claimed by a work
      // package that never ran again (issue 24). An unchecked exception rolls the batch (and its
      // token) back, reaches the error handler (health, metrics) and the segment retries it.
      throw new IllegalStateException(
          "Redis failed to append " + appends.size() + " events: " + e, e);
    }
  }

  /** An append's event (its fields but the payload) and its JSON text. */
  record Event(StreamEvent fields, String json) {}

  /**
   * The event as subscribers see it ({@link StreamEvent#json()}), built from Axon's message. The
   * payload's JSON is the one stored: the handler takes no payload parameter, so a payload that no
   * other handler read is never deserialized, and none is mapped and encoded again.
   */
  static Event of(EventMessage<?> message, long position, Serializer serializer) {
    String aggregateType = null;
    String aggregateId = null;
    long sequence = 0;
    if (message instanceof DomainEventMessage) {
      DomainEventMessage<?> domain = (DomainEventMessage<?>) message;
      aggregateType = domain.getType();
      aggregateId = StreamIds.businessId(domain.getAggregateIdentifier());
      sequence = domain.getSequenceNumber();
    }
    StreamEvent fields =
        new StreamEvent(
            message.getIdentifier(),
            position,
            aggregateType,
            aggregateId,
            sequence,
            StreamEvent.simpleType(message.getPayloadType().getName()),
            message.getTimestamp(),
            text(message.getMetaData().get("commandId")),
            text(message.getMetaData().get("correlationId")),
            text(message.getMetaData().get("traceId")),
            null);
    String payload = message.serializePayload(serializer, String.class).getData();
    return new Event(fields, fields.encodeWith(payload));
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }
}
