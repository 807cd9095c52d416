package io.slotkeeper.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.platform.axon.AxonStorage;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Map;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.messaging.MetaData;
import org.axonframework.serialization.SerializedMessage;
import org.axonframework.serialization.SimpleSerializedObject;
import org.junit.jupiter.api.Test;

class RedisEventPublisherTest {

  @Test
  void subscribersSeeTheBusinessIdNotTheStreamId() {
    StockReceived payload = new StockReceived("order:X", 5, "delivery", 5, 0);
    Instant at = Instant.parse("2026-12-02T10:15:30.123Z");
    RedisEventPublisher.Event event =
        RedisEventPublisher.of(
            new GenericDomainEventMessage<>(
                "Inventory",
                StreamIds.inventory("order:X"),
                3,
                payload,
                MetaData.from(Map.of("commandId", "cmd-1")),
                "event-1",
                at),
            42,
            AxonStorage.eventSerializer());
    assertThat(event.fields().aggregateType()).isEqualTo("Inventory");
    assertThat(event.fields().aggregateId()).isEqualTo("order:X");
    assertThat(event.fields().type()).isEqualTo("StockReceived");

    // The JSON is the one every other channel sends: StreamEvent's, with the payload's fields.
    StreamEvent decoded = StreamEvent.fromJson(new JsonObject(event.json()));
    assertThat(decoded.eventId()).isEqualTo("event-1");
    assertThat(decoded.position()).isEqualTo(42);
    assertThat(decoded.aggregateId()).isEqualTo("order:X");
    assertThat(decoded.sequence()).isEqualTo(3);
    assertThat(decoded.time()).isEqualTo(at);
    assertThat(decoded.causationId()).isEqualTo("cmd-1");
    assertThat(decoded.traceId()).isNull();
    assertThat(decoded.payload())
        .isEqualTo(
            new JsonObject()
                .put("sku", "order:X")
                .put("qty", 5)
                .put("reason", "delivery")
                .put("onHand", 5)
                .put("reserved", 0));
    assertThat(new JsonObject(event.json())).isEqualTo(decoded.json());
  }

  @Test
  void aStoredPayloadIsCopiedAsStoredNotDeserializedAndEncodedAgain() {
    // Stored text that re-encoding would change (spacing, field order) and a type that no class
    // has: a deserialization would fail, an encoding of the object would not look like this.
    String stored = "{ \"sku\" : \"A-1\",  \"qty\":5 }";
    SerializedMessage<Object> message =
        new SerializedMessage<>(
            "event-2",
            new SimpleSerializedObject<>(
                stored, String.class, "io.slotkeeper.events.NoSuchEvent", null),
            new SimpleSerializedObject<>("{}", String.class, MetaData.class.getName(), null),
            AxonStorage.eventSerializer());
    RedisEventPublisher.Event event =
        RedisEventPublisher.of(
            new GenericDomainEventMessage<>(
                "Inventory", StreamIds.inventory("A-1"), 0, message, Instant.EPOCH),
            7,
            AxonStorage.eventSerializer());
    assertThat(event.json()).endsWith(",\"payload\":" + stored + "}");
    assertThat(new JsonObject(event.json()).getJsonObject("payload").getInteger("qty"))
        .isEqualTo(5);
  }
}
