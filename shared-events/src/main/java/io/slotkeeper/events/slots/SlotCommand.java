package io.slotkeeper.events.slots;

import io.slotkeeper.events.Command;
import io.slotkeeper.events.StreamIds;
import java.time.Instant;
import java.util.Map;

/** Commands to the slot ledger; one aggregate per (job, nominal instant). */
public sealed interface SlotCommand extends Command {

  /** The slot's ID, derived from job and nominal instant. */
  String slotId();

  @Override
  default String aggregateId() {
    return slotId();
  }

  @Override
  default String streamId() {
    return StreamIds.slot(slotId());
  }

  /**
   * An instance holding the job's lease under {@code fencingToken} starts the slot's work (attempt
   * 1, or a retry / takeover with a higher attempt number). The ledger stamps the fire time itself,
   * so re-sending the same fire is the same command.
   */
  record FireSlot(
      String commandId,
      String slotId,
      String job,
      Instant nominal,
      String instanceId,
      long fencingToken,
      int attempt,
      boolean backfill)
      implements SlotCommand {}

  /** The slot's work finished; {@code counts} are its effects (orders processed, rows deleted). */
  record CompleteSlot(
      String commandId,
      String slotId,
      String instanceId,
      long fencingToken,
      Map<String, Long> counts,
      long durationMillis)
      implements SlotCommand {}

  /** The slot's attempt failed. */
  record FailSlot(
      String commandId, String slotId, String instanceId, long fencingToken, String error)
      implements SlotCommand {}

  /** The slot is not run: the job's previous run was still going. */
  record SkipSlot(String commandId, String slotId, String job, Instant nominal, String reason)
      implements SlotCommand {}

  /** The slot is not run: it lies outside the job's catch-up window. */
  record MissSlot(String commandId, String slotId, String job, Instant nominal, String reason)
      implements SlotCommand {}
}
