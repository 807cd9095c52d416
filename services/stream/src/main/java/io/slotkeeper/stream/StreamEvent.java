package io.slotkeeper.stream;

import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * One stored event as subscribers see it, the same on HTTP, SSE, gRPC and Redis Streams.
 *
 * @param eventId the event's stable identifier (Axon's event identifier)
 * @param position its global position (strictly increasing, may have gaps)
 * @param causationId the ID of the command that caused it ({@code commandId} metadata)
 */
public record StreamEvent(
    String eventId,
    long position,
    String aggregateType,
    String aggregateId,
    long sequence,
    String type,
    Instant time,
    String causationId,
    String correlationId,
    String traceId,
    JsonObject payload) {

  /** {@code io.x.InventoryEvent$StockReceived} → {@code StockReceived}. */
  public static String simpleType(String className) {
    int cut = Math.max(className.lastIndexOf('.'), className.lastIndexOf('$'));
    return className.substring(cut + 1);
  }

  /** The event's JSON (the body of SSE data, the page entries and the Redis field "json"). */
  public JsonObject json() {
    return envelope().put("payload", payload);
  }

  /**
   * The text of {@link #json()} with {@code payloadJson} as the payload, copied as it is: a payload
   * read from the store need not be parsed and encoded again (its {@link #payload} is not used).
   */
  String encodeWith(String payloadJson) {
    String head = envelope().encode();
    return head.substring(0, head.length() - 1) + ",\"payload\":" + payloadJson + "}";
  }

  /** Every field of {@link #json()} but the payload, in its order. */
  private JsonObject envelope() {
    return new JsonObject()
        .put("eventId", eventId)
        .put("position", position)
        .put("aggregateType", aggregateType)
        .put("aggregateId", aggregateId)
        .put("sequence", sequence)
        .put("type", type)
        .put("time", time.toString())
        .put("causationId", causationId)
        .put("correlationId", correlationId)
        .put("traceId", traceId);
  }

  /** The inverse of {@link #json()}. */
  public static StreamEvent fromJson(JsonObject j) {
    return new StreamEvent(
        j.getString("eventId"),
        j.getLong("position"),
        j.getString("aggregateType"),
        j.getString("aggregateId"),
        j.getLong("sequence"),
        j.getString("type"),
        Instant.parse(j.getString("time")),
        j.getString("causationId"),
        j.getString("correlationId"),
        j.getString("traceId"),
        j.getJsonObject("payload"));
  }
}
