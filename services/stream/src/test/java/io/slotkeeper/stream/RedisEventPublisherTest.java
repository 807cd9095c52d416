package io.slotkeeper.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import java.util.Map;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.junit.jupiter.api.Test;

class RedisEventPublisherTest {

  @Test
  void subscribersSeeTheBusinessIdNotTheStreamId() throws Exception {
    StockReceived payload = new StockReceived("order:X", 5, "delivery", 5, 0);
    StreamEvent event =
        RedisEventPublisher.of(
            payload,
            new GenericDomainEventMessage<>(
                "Inventory",
                StreamIds.inventory("order:X"),
                3,
                payload,
                Map.of("commandId", "cmd-1")),
            42);
    assertThat(event.aggregateType()).isEqualTo("Inventory");
    assertThat(event.aggregateId()).isEqualTo("order:X");
    assertThat(event.sequence()).isEqualTo(3);
    assertThat(event.causationId()).isEqualTo("cmd-1");
    assertThat(event.payload().getString("sku")).isEqualTo("order:X");
  }
}
