package io.slotkeeper.stream;

import com.fasterxml.jackson.core.type.TypeReference;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.platform.axon.CommitQueues;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;

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
  private static final TypeReference<Map<String, Object>> FIELDS = new TypeReference<>() {};

  private final Redis redis;
  private final String stream;
  private final int maxLen;
  private final EventPositions positions;

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
  void on(Object payload, EventMessage<?> message) {
    StreamEvent event = of(payload, message, positions.of(message.getIdentifier()));
    Request xadd =
        Request.cmd(Command.XADD)
            .arg(stream)
            .arg("MAXLEN")
            .arg("~")
            .arg(maxLen)
            .arg("*")
            .arg("eventId")
            .arg(event.eventId())
            .arg("position")
            .arg(event.position())
            .arg("type")
            .arg(event.type())
            .arg("aggregateType")
            .arg(String.valueOf(event.aggregateType()))
            .arg("aggregateId")
            .arg(String.valueOf(event.aggregateId()))
            .arg("json")
            .arg(event.json().encode());
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
    }
  }

  /** The event as subscribers see it, built from Axon's message. */
  static StreamEvent of(Object payload, EventMessage<?> message, long position) {
    String aggregateType = null;
    String aggregateId = null;
    long sequence = 0;
    if (message instanceof DomainEventMessage) {
      DomainEventMessage<?> domain = (DomainEventMessage<?>) message;
      aggregateType = domain.getType();
      aggregateId = StreamIds.businessId(domain.getAggregateIdentifier());
      sequence = domain.getSequenceNumber();
    }
    Object commandId = message.getMetaData().get("commandId");
    Object correlationId = message.getMetaData().get("correlationId");
    Object traceId = message.getMetaData().get("traceId");
    Instant time = message.getTimestamp();
    return new StreamEvent(
        message.getIdentifier(),
        position,
        aggregateType,
        aggregateId,
        sequence,
        StreamEvent.simpleType(payload.getClass().getName()),
        time,
        commandId == null ? null : commandId.toString(),
        correlationId == null ? null : correlationId.toString(),
        traceId == null ? null : traceId.toString(),
        // the payload's fields as a map, without a round trip through a JSON string
        new JsonObject(Json.mapper().convertValue(payload, FIELDS)));
  }
}
