package io.slotkeeper.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.events.slots.SlotCommand.MissSlot;
import io.slotkeeper.events.slots.SlotStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A slot's first fire and a missed slot's record are sent as creations (no read of the slot's
 * stream); when the slot exists after all they fall back to the regular handler, which decides on
 * the slot's state exactly as before.
 */
class SlotFirstFireIT {

  static final Instant NOMINAL = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(5);
  private WriteModelHarness harness;
  private WriteModel model;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("firstfire");
    model = harness.start("a", true);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private CommandOutcome<SlotSnapshot> firstFire(String commandId, String slot, String instance) {
    return model
        .commands()
        .<SlotSnapshot>sendCreating(
            new FireSlot(commandId, slot, "job-ff", nominal(slot), instance, 1, 1, false))
        .join();
  }

  @Test
  void theCreationNamesAreTheOnesTheServiceSends() {
    assertThat(Slot.FIRST_FIRE).isEqualTo(CommandService.creatingName(FireSlot.class));
    assertThat(Slot.FIRST_MISS).isEqualTo(CommandService.creatingName(MissSlot.class));
  }

  @Test
  void aFirstFireCreatesTheSlot() {
    CommandOutcome<SlotSnapshot> fired = firstFire("ff-1", "slot-ff-1", "a");
    assertThat(fired.duplicate()).isFalse();
    assertThat(fired.result().accepted()).isTrue();
    assertThat(fired.result().status()).isEqualTo(SlotStatus.FIRED);
    assertThat(fired.result().attempt()).isEqualTo(1);
    awaitRun("slot-ff-1", "FIRED a");
  }

  @Test
  void anotherInstancesFirstFireOfAFiredSlotFallsBackAndIsRefused() {
    assertThat(firstFire("ff-2a", "slot-ff-2", "a").result().accepted()).isTrue();
    CommandOutcome<SlotSnapshot> second = firstFire("ff-2b", "slot-ff-2", "b");
    assertThat(second.duplicate()).isFalse();
    assertThat(second.result().accepted()).isFalse();
    assertThat(second.result().instanceId()).isEqualTo("a");
    awaitRun("slot-ff-2", "FIRED a");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                harness.queryLong(
                        "SELECT duplicates_rejected FROM job_runs WHERE slot_id = 'slot-ff-2'")
                    == 1);
  }

  @Test
  void theSameFirstFireSentTwiceIsADuplicateWithTheFirstOutcome() {
    CommandOutcome<SlotSnapshot> first = firstFire("ff-3", "slot-ff-3", "a");
    CommandOutcome<SlotSnapshot> again = firstFire("ff-3", "slot-ff-3", "a");
    assertThat(again.duplicate()).isTrue();
    assertThat(again.result().accepted()).isTrue();
    assertThat(again.result().fencingToken()).isEqualTo(first.result().fencingToken());
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger WHERE command_id = 'ff-3'"))
        .isEqualTo(1);
  }

  @Test
  void aFirstFireOfAMissedSlotIsRefusedAndAMissOfAFiredSlotChangesNothing() {
    CommandOutcome<SlotSnapshot> missed =
        model
            .commands()
            .<SlotSnapshot>sendCreating(
                new MissSlot(
                    "miss-4", "slot-ff-4", "job-ff", nominal("slot-ff-4"), "outside the window"))
            .join();
    assertThat(missed.result().status()).isEqualTo(SlotStatus.MISSED);
    CommandOutcome<SlotSnapshot> fire = firstFire("ff-4", "slot-ff-4", "a");
    assertThat(fire.result().accepted()).isFalse();
    assertThat(fire.result().status()).isEqualTo(SlotStatus.MISSED);

    assertThat(firstFire("ff-5", "slot-ff-5", "a").result().accepted()).isTrue();
    CommandOutcome<SlotSnapshot> lateMiss =
        model
            .commands()
            .<SlotSnapshot>sendCreating(
                new MissSlot("miss-5", "slot-ff-5", "job-ff", nominal("slot-ff-5"), "late"))
            .join();
    assertThat(lateMiss.result().status()).isEqualTo(SlotStatus.FIRED);
    awaitRun("slot-ff-4", "MISSED null");
    awaitRun("slot-ff-5", "FIRED a");
  }

  /** The slot's nominal instant: job_runs holds one slot per (job, instant), as the real IDs do. */
  private static Instant nominal(String slot) {
    return NOMINAL.plusSeconds(Integer.parseInt(slot.substring(slot.lastIndexOf('-') + 1)));
  }

  private void awaitRun(String slot, String statusAndInstance) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        harness.queryString(
                            "SELECT status || ' ' || coalesce(instance_id, 'null') FROM job_runs"
                                + " WHERE slot_id = '"
                                + slot
                                + "'"))
                    .isEqualTo(statusAndInstance));
  }
}
