package io.slotkeeper.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class StreamIdsTest {

  @Test
  void theSameBusinessIdOfDifferentTypesGivesDifferentStreams() {
    assertThat(StreamIds.order("X")).isEqualTo("order:X");
    assertThat(StreamIds.inventory("X")).isEqualTo("inventory:X");
    String slotId = DeterministicIds.forSlot("job", Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(StreamIds.slot(slotId)).isEqualTo("slot:" + slotId);
    assertThat(StreamIds.order(slotId)).isNotEqualTo(StreamIds.slot(slotId));
  }

  @Test
  void anIdThatLooksLikeAnotherTypesStreamStaysInItsOwnType() {
    // An order named like an inventory stream still lives in an order stream.
    assertThat(StreamIds.order("inventory:X")).isEqualTo("order:inventory:X");
    assertThat(StreamIds.order("inventory:X")).isNotEqualTo(StreamIds.inventory("X"));
  }

  @Test
  void businessIdIsWhatFollowsThePrefix() {
    assertThat(StreamIds.businessId(StreamIds.order("inventory:X"))).isEqualTo("inventory:X");
    assertThat(StreamIds.businessId(StreamIds.inventory("a:b:c"))).isEqualTo("a:b:c");
    assertThat(StreamIds.businessId(StreamIds.slot("s"))).isEqualTo("s");
    assertThat(StreamIds.businessId(null)).isNull();
    assertThat(StreamIds.order(null)).isNull();
  }
}
