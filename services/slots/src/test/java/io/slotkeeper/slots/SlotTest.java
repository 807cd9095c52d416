package io.slotkeeper.slots;

import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FailSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.events.slots.SlotCommand.MissSlot;
import io.slotkeeper.events.slots.SlotCommand.SkipSlot;
import io.slotkeeper.events.slots.SlotEvent.SlotCompleted;
import io.slotkeeper.events.slots.SlotEvent.SlotFailed;
import io.slotkeeper.events.slots.SlotEvent.SlotFireRejected;
import io.slotkeeper.events.slots.SlotEvent.SlotFired;
import io.slotkeeper.events.slots.SlotEvent.SlotMissed;
import io.slotkeeper.events.slots.SlotEvent.SlotSkipped;
import java.time.Instant;
import java.util.Map;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One test per ledger rule. */
class SlotTest {

  static final Instant NOMINAL = Instant.parse("2026-11-29T10:00:00Z");
  static final Instant FIRED_AT = Instant.parse("2026-11-29T10:00:00.020Z");

  private FixtureConfiguration<Slot> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Slot.class);
    fixture.registerInjectableResource(java.time.Clock.fixed(FIRED_AT, java.time.ZoneOffset.UTC));
    fixture.registerCommandTargetResolver(
        cmd -> new VersionedAggregateIdentifier(((Command) cmd.getPayload()).streamId(), null));
  }

  static FireSlot fire(String instance, long token, int attempt) {
    return new FireSlot(
        "f-" + instance + token + attempt, "s-1", "job", NOMINAL, instance, token, attempt, false);
  }

  static SlotFired fired(String instance, long token, int attempt) {
    return new SlotFired("s-1", "job", NOMINAL, instance, token, attempt, false, FIRED_AT);
  }

  @Test
  void aNewSlotFires() {
    fixture.givenNoPriorActivity().when(fire("a", 5, 1)).expectEvents(fired("a", 5, 1));
  }

  @Test
  void aCompletedSlotRefusesAnotherFire() {
    fixture
        .given(fired("a", 5, 1), new SlotCompleted("s-1", "a", Map.of("orders", 3L), 40))
        .when(fire("b", 6, 1))
        .expectEvents(new SlotFireRejected("s-1", "b", 6, "already COMPLETED"));
  }

  @Test
  void aRunningSlotRefusesAFireWithAnOlderOrEqualToken() {
    fixture
        .given(fired("a", 5, 1))
        .when(fire("b", 5, 1))
        .expectEvents(new SlotFireRejected("s-1", "b", 5, "running on a under fencing token 5"));
  }

  @Test
  void theRunningHolderResumesARunItLostTrackOfAsTheNextAttempt() {
    fixture.given(fired("a", 5, 1)).when(fire("a", 5, 2)).expectEvents(fired("a", 5, 2));
  }

  @Test
  void theRunningHolderCannotResendItsRunningAttempt() {
    fixture
        .given(fired("a", 5, 2))
        .when(fire("a", 5, 2))
        .expectEvents(new SlotFireRejected("s-1", "a", 5, "running on a under fencing token 5"));
  }

  @Test
  void anotherInstanceCannotResumeARunWithTheHoldersToken() {
    fixture
        .given(fired("a", 5, 1))
        .when(fire("b", 5, 2))
        .expectEvents(new SlotFireRejected("s-1", "b", 5, "running on a under fencing token 5"));
  }

  @Test
  void aRunningSlotIsTakenOverByANewerLeaseHolder() {
    fixture.given(fired("a", 5, 1)).when(fire("b", 6, 2)).expectEvents(fired("b", 6, 2));
  }

  @Test
  void aFailedSlotIsRetriedAsTheNextAttempt() {
    fixture
        .given(fired("a", 5, 1), new SlotFailed("s-1", "a", 1, "boom"))
        .when(fire("a", 5, 2))
        .expectEvents(fired("a", 5, 2));
  }

  @Test
  void onlyTheRunningHolderCompletes() {
    fixture
        .given(fired("a", 5, 1), fired("b", 6, 2))
        .when(new CompleteSlot("c-1", "s-1", "a", 5, Map.of(), 10))
        .expectException(IllegalTransitionException.class)
        .expectNoEvents();
  }

  @Test
  void theRunningHolderCompletesWithCounts() {
    fixture
        .given(fired("a", 5, 1))
        .when(new CompleteSlot("c-1", "s-1", "a", 5, Map.of("orders", 2L), 15))
        .expectEvents(new SlotCompleted("s-1", "a", Map.of("orders", 2L), 15));
  }

  @Test
  void theRunningHolderRecordsAFailure() {
    fixture
        .given(fired("a", 5, 1))
        .when(new FailSlot("x-1", "s-1", "a", 5, "timeout"))
        .expectEvents(new SlotFailed("s-1", "a", 1, "timeout"));
  }

  @Test
  void aSlotOutsideTheWindowIsRecordedAsMissedOnce() {
    fixture
        .givenNoPriorActivity()
        .when(new MissSlot("m-1", "s-1", "job", NOMINAL, "outside window"))
        .expectEvents(new SlotMissed("s-1", "job", NOMINAL, "outside window"));
    fixture
        .given(fired("a", 5, 1))
        .when(new MissSlot("m-1", "s-1", "job", NOMINAL, "outside window"))
        .expectNoEvents();
  }

  @Test
  void anOverlappingSlotIsSkipped() {
    fixture
        .givenNoPriorActivity()
        .when(new SkipSlot("k-1", "s-1", "job", NOMINAL, "previous run still going"))
        .expectEvents(new SlotSkipped("s-1", "job", NOMINAL, "previous run still going"));
  }
}
