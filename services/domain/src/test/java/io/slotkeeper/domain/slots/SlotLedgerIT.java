package io.slotkeeper.domain.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.domain.WriteModel;
import io.slotkeeper.domain.WriteModelHarness;
import io.slotkeeper.domain.command.CommandOutcome;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Fencing and duplicate fires against the real store. */
class SlotLedgerIT {

  static final Instant NOMINAL = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(5);
  private WriteModelHarness harness;
  private WriteModel model;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("slots");
    model = harness.start("a", true);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private CommandOutcome<SlotSnapshot> fire(String slot, String instance, long token, int attempt) {
    return model
        .commands()
        .<SlotSnapshot>send(
            new FireSlot(
                "fire-" + slot + "-" + attempt,
                slot,
                "job-1",
                NOMINAL,
                instance,
                token,
                attempt,
                false))
        .join();
  }

  @Test
  void aFireWithAStaleTokenIsRefusedAfterANewerHolderFired() {
    assertThat(fire("slot-1", "new-holder", 7, 1).result().accepted()).isTrue();
    // The old holder, paused past its lease, wakes up and fires the next slot with token 6.
    assertThatThrownBy(() -> fire("slot-2", "old-holder", 6, 1))
        .hasCauseInstanceOf(StaleFencingTokenException.class);
    assertThat(harness.queryLong("SELECT highest_token FROM job_fences WHERE job = 'job-1'"))
        .isEqualTo(7);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'slot-2'"))
        .isZero();
  }

  @Test
  void theSameFireTwiceIsADuplicateAndAnotherInstanceIsRefused() {
    CommandOutcome<SlotSnapshot> first = fire("slot-3", "a", 3, 1);
    CommandOutcome<SlotSnapshot> again = fire("slot-3", "a", 3, 1);
    assertThat(first.duplicate()).isFalse();
    assertThat(again.duplicate()).isTrue();
    assertThat(again.result().instanceId()).isEqualTo("a");
    model
        .commands()
        .send(new CompleteSlot("done-3", "slot-3", "a", 3, Map.of("rows", 2L), 12))
        .join();
    CommandOutcome<SlotSnapshot> late =
        model
            .commands()
            .<SlotSnapshot>send(
                new FireSlot("fire-slot-3-b", "slot-3", "job-1", NOMINAL, "b", 4, 1, false))
            .join();
    assertThat(late.result().accepted()).isFalse();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "COMPLETED 1 {\"rows\": 2}"
                    .equals(
                        harness.queryString(
                            "SELECT status || ' ' || duplicates_rejected || ' ' || counts::text FROM job_runs WHERE slot_id = 'slot-3'")));
    // The ledger stamps the fire time: lag runs from the nominal instant to it.
    assertThat(harness.queryLong("SELECT lag_ms FROM job_runs WHERE slot_id = 'slot-3'"))
        .isGreaterThanOrEqualTo(5_000);
  }
}
