package io.slotkeeper.slots;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FailSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.events.slots.SlotCommand.MissSlot;
import io.slotkeeper.events.slots.SlotCommand.SkipSlot;
import java.time.Instant;
import java.util.Map;

/**
 * The one place that builds the slot ledger's commands and their IDs. Every ID derives from the job
 * and the slot's nominal instant ({@link DeterministicIds#forSlotCommand}), so a re-sent command, a
 * second instance or a restart sends the same ID and the ledger answers "duplicate".
 */
public final class SlotCommands {

  private SlotCommands() {}

  /** The ID of the command a slot sends to {@code target}: the same on every attempt. */
  public static String commandId(String job, Instant nominal, String target) {
    return DeterministicIds.forSlotCommand(job, nominal, target);
  }

  /** The slot's ledger ID. */
  public static String slotId(String job, Instant nominal) {
    return DeterministicIds.forSlot(job, nominal);
  }

  /**
   * Attempt {@code attempt} of the slot under {@code token}. Per attempt, instance and token: the
   * same fire re-sent is a duplicate; another instance's fire is a different command that the slot
   * itself accepts or refuses. {@code byOperator}: a manual run or a backfill, never a timer's.
   */
  public static FireSlot fire(
      String job, Instant nominal, String instanceId, long token, int attempt, boolean byOperator) {
    return new FireSlot(
        commandId(job, nominal, "fire-" + attempt + "-" + instanceId + "-" + token),
        slotId(job, nominal),
        job,
        nominal,
        instanceId,
        token,
        attempt,
        byOperator);
  }

  /** The end of an accepted attempt: its effect counts and duration. */
  public static CompleteSlot complete(
      SlotSnapshot slot, String instanceId, Map<String, Long> counts, long millis) {
    return new CompleteSlot(
        commandId(slot.job(), slot.nominal(), "complete" + attemptSuffix(slot)),
        slot.slotId(),
        instanceId,
        slot.fencingToken(),
        counts,
        millis);
  }

  /** A failed attempt (retried later under the same IDs). */
  public static FailSlot fail(SlotSnapshot slot, String instanceId, String error) {
    return new FailSlot(
        commandId(slot.job(), slot.nominal(), "fail" + attemptSuffix(slot)),
        slot.slotId(),
        instanceId,
        slot.fencingToken(),
        error);
  }

  /** The slot is not run (overlap, pause). */
  public static SkipSlot skip(String job, Instant nominal, String reason) {
    return new SkipSlot(
        commandId(job, nominal, "skip"), slotId(job, nominal), job, nominal, reason);
  }

  /** The slot is not run: outside the catch-up window, or dropped by the catch-up policy. */
  public static MissSlot miss(String job, Instant nominal, String reason) {
    return new MissSlot(
        commandId(job, nominal, "miss"), slotId(job, nominal), job, nominal, reason);
  }

  private static String attemptSuffix(SlotSnapshot slot) {
    return "-" + slot.attempt() + "-" + slot.fencingToken();
  }
}
