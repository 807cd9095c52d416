package io.slotkeeper.platform.axon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The fetched positions are a bounded memory: the oldest leave first, and a position no longer
 * remembered is looked up in the store instead of being answered wrongly. (The store part is {@code
 * FetchedPositionsIT} and {@code PositionLookupPlanIT}.)
 */
class EventPositionsTest {

  // Positions that may not query: a lookup shows up as this exception.
  private final EventPositions positions =
      new EventPositions(
          () -> {
            throw new IllegalStateException("looked up in the store");
          });

  @Test
  void theOldestFetchedPositionLeavesFirstAndIsThenLookedUp() {
    for (int i = 0; i <= EventPositions.REMEMBERED; i++) {
      positions.fetched("event-" + i, 1_000L + i);
    }

    assertThatThrownBy(() -> positions.of("event-0")).hasMessage("looked up in the store");
    assertThat(positions.of("event-1")).isEqualTo(1_001L);
    assertThat(positions.of("event-" + EventPositions.REMEMBERED))
        .isEqualTo(1_000L + EventPositions.REMEMBERED);
  }

  @Test
  void aPositionFetchedAgainIsNotForgottenTwice() {
    positions.fetched("event-a", 7L);
    positions.fetched("event-a", 7L);
    for (int i = 0; i < EventPositions.REMEMBERED - 1; i++) {
      positions.fetched("event-" + i, i);
    }

    assertThat(positions.of("event-a")).isEqualTo(7L);
  }
}
