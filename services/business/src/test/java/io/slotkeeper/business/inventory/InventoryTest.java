package io.slotkeeper.business.inventory;

import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.inventory.InventoryCommand.CommitReservation;
import io.slotkeeper.events.inventory.InventoryCommand.CountStock;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.inventory.InventoryCommand.ReleaseReservation;
import io.slotkeeper.events.inventory.InventoryCommand.ReserveStock;
import io.slotkeeper.events.inventory.InventoryEvent.ReservationCommitted;
import io.slotkeeper.events.inventory.InventoryEvent.ReservationReleased;
import io.slotkeeper.events.inventory.InventoryEvent.StockCounted;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.events.inventory.InventoryEvent.StockReserved;
import java.time.Instant;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One given/when/expect test per inventory rule. */
class InventoryTest {

  private static final Instant T1 = Instant.parse("2025-01-01T10:00:00Z");
  private static final StockReceived TEN = new StockReceived("SKU-1", 10, "delivery", 10, 0);
  private static final StockReserved O1_RESERVED = new StockReserved("SKU-1", "o-1", 4, 10, 4);

  private FixtureConfiguration<Inventory> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Inventory.class);
    fixture.registerCommandTargetResolver(
        cmd -> new VersionedAggregateIdentifier(((Command) cmd.getPayload()).streamId(), null));
  }

  @Test
  void receivingCreatesAnUnknownSku() {
    fixture
        .givenNoPriorActivity()
        .when(new ReceiveStock("c1", "SKU-1", 10, "delivery"))
        .expectEvents(TEN)
        .expectResultMessagePayload(new InventorySnapshot("SKU-1", 10, 0, 10, 1, false, null));
  }

  @Test
  void receivingAddsToOnHand() {
    fixture
        .given(TEN)
        .when(new ReceiveStock("c2", "SKU-1", 5, "return"))
        .expectEvents(new StockReceived("SKU-1", 5, "return", 15, 0));
  }

  @Test
  void receivingZeroIsInvalid() {
    fixture
        .givenNoPriorActivity()
        .when(new ReceiveStock("c1", "SKU-1", 0, "delivery"))
        .expectException(InvalidCommandException.class)
        .expectNoEvents();
  }

  @Test
  void countingCreatesAnUnknownSku() {
    fixture
        .givenNoPriorActivity()
        .when(new CountStock("c1", "SKU-1", 7, T1))
        .expectEvents(new StockCounted("SKU-1", T1, 7, 7, 0));
  }

  @Test
  void aCountSetsOnHandAndRecordsTheDelta() {
    fixture
        .given(TEN)
        .when(new CountStock("c2", "SKU-1", 8, T1))
        .expectEvents(new StockCounted("SKU-1", T1, -2, 8, 0))
        .expectResultMessagePayload(new InventorySnapshot("SKU-1", 8, 0, 8, 2, false, null));
  }

  @Test
  void aCountNotNewerThanTheLastIsIgnored() {
    fixture
        .given(new StockCounted("SKU-1", T1, 7, 7, 0))
        .when(new CountStock("c2", "SKU-1", 3, T1))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-1",
                7,
                0,
                7,
                1,
                true,
                "count as of 2025-01-01T10:00:00Z ignored: a count as of 2025-01-01T10:00:00Z"));
  }

  @Test
  void anOlderCountIsIgnoredAndReportedAsNoop() {
    fixture
        .given(new StockCounted("SKU-1", T1, 7, 7, 0))
        .when(new CountStock("c2", "SKU-1", 3, T1.minusSeconds(60)))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-1",
                7,
                0,
                7,
                1,
                true,
                "count as of 2025-01-01T09:59:00Z ignored: a count as of 2025-01-01T10:00:00Z"));
  }

  @Test
  void aCountBelowReservedIsRefused() {
    fixture
        .given(TEN, O1_RESERVED)
        .when(new CountStock("c3", "SKU-1", 3, T1))
        .expectException(RuleViolationException.class)
        .expectNoEvents();
  }

  @Test
  void aNegativeCountIsInvalid() {
    fixture
        .given(TEN)
        .when(new CountStock("c2", "SKU-1", -1, T1))
        .expectException(InvalidCommandException.class);
  }

  @Test
  void reservingHoldsStock() {
    fixture
        .given(TEN)
        .when(new ReserveStock("c2", "SKU-1", "o-1", 4))
        .expectEvents(O1_RESERVED)
        .expectResultMessagePayload(new InventorySnapshot("SKU-1", 10, 4, 6, 2, false, null));
  }

  @Test
  void reservingMoreThanAvailableNamesAvailable() {
    fixture
        .given(TEN, O1_RESERVED)
        .when(new ReserveStock("c3", "SKU-1", "o-2", 7))
        .expectException(RuleViolationException.class)
        .expectExceptionMessage("insufficient stock of SKU-1: requested 7, available 6")
        .expectNoEvents();
  }

  @Test
  void reservingAnUnknownSkuIsAShortage() {
    fixture
        .givenNoPriorActivity()
        .when(new ReserveStock("c1", "SKU-9", "o-1", 1))
        .expectException(RuleViolationException.class)
        .expectExceptionMessage("insufficient stock of SKU-9: requested 1, available 0");
  }

  @Test
  void theSameReservationUnderANewCommandIsANoop() {
    fixture
        .given(TEN, O1_RESERVED)
        .when(new ReserveStock("c3", "SKU-1", "o-1", 4))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-1", 10, 4, 6, 2, true, "order o-1 already holds this reservation"));
  }

  @Test
  void aDifferentReservationForTheSameOrderIsRefused() {
    fixture
        .given(TEN, O1_RESERVED)
        .when(new ReserveStock("c3", "SKU-1", "o-1", 2))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("cannot reserve SKU-1 for order o-1: it is RESERVED 4");
  }

  @Test
  void aReleasedOrderCannotReserveAgain() {
    fixture
        .given(TEN, O1_RESERVED, new ReservationReleased("SKU-1", "o-1", 4, 10, 0))
        .when(new ReserveStock("c4", "SKU-1", "o-1", 4))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("cannot reserve SKU-1 for order o-1: it is RELEASED");
  }

  @Test
  void releasingReturnsStock() {
    fixture
        .given(TEN, O1_RESERVED)
        .when(new ReleaseReservation("c3", "SKU-1", "o-1"))
        .expectEvents(new ReservationReleased("SKU-1", "o-1", 4, 10, 0));
  }

  @Test
  void releasingTwiceIsANoop() {
    fixture
        .given(TEN, O1_RESERVED, new ReservationReleased("SKU-1", "o-1", 4, 10, 0))
        .when(new ReleaseReservation("c4", "SKU-1", "o-1"))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-1", 10, 0, 10, 3, true, "the reservation of order o-1 is already RELEASED"));
  }

  @Test
  void releasingAnUnknownReservationIsANoop() {
    fixture
        .given(TEN)
        .when(new ReleaseReservation("c2", "SKU-1", "o-7"))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-1", 10, 0, 10, 1, true, "order o-7 holds no reservation of SKU-1"));
  }

  @Test
  void releasingOnAnUnknownSkuIsANoop() {
    fixture
        .givenNoPriorActivity()
        .when(new ReleaseReservation("c1", "SKU-9", "o-1"))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-9", 0, 0, 0, 0, true, "order o-1 holds no reservation of SKU-9"));
  }

  @Test
  void committingShipsTheReservation() {
    fixture
        .given(TEN, O1_RESERVED)
        .when(new CommitReservation("c3", "SKU-1", "o-1"))
        .expectEvents(new ReservationCommitted("SKU-1", "o-1", 4, 6, 0))
        .expectResultMessagePayload(new InventorySnapshot("SKU-1", 6, 0, 6, 3, false, null));
  }

  @Test
  void committingTwiceIsANoop() {
    fixture
        .given(TEN, O1_RESERVED, new ReservationCommitted("SKU-1", "o-1", 4, 6, 0))
        .when(new CommitReservation("c4", "SKU-1", "o-1"))
        .expectNoEvents()
        .expectResultMessagePayload(
            new InventorySnapshot(
                "SKU-1", 6, 0, 6, 3, true, "the reservation of order o-1 is already COMMITTED"));
  }

  @Test
  void committingAReleasedReservationIsANoop() {
    fixture
        .given(TEN, O1_RESERVED, new ReservationReleased("SKU-1", "o-1", 4, 10, 0))
        .when(new CommitReservation("c4", "SKU-1", "o-1"))
        .expectNoEvents();
  }
}
