package io.slotkeeper.events.slots;

import java.time.Instant;
import java.util.Map;

/** Events of the slot ledger. */
public sealed interface SlotEvent {

  String slotId();

  /** The slot's work started on an instance. */
  record SlotFired(
      String slotId,
      String job,
      Instant nominal,
      String instanceId,
      long fencingToken,
      int attempt,
      boolean backfill,
      Instant firedAt)
      implements SlotEvent {}

  /** The slot's work finished. */
  record SlotCompleted(
      String slotId, String instanceId, Map<String, Long> counts, long durationMillis)
      implements SlotEvent {}

  /** An attempt failed. */
  record SlotFailed(String slotId, String instanceId, int attempt, String error)
      implements SlotEvent {}

  /** Not run: overlap. */
  record SlotSkipped(String slotId, String job, Instant nominal, String reason)
      implements SlotEvent {}

  /** Not run: outside the catch-up window. */
  record SlotMissed(String slotId, String job, Instant nominal, String reason)
      implements SlotEvent {}

  /** A fire of a slot that had already run (or was running under a newer token) was refused. */
  record SlotFireRejected(String slotId, String instanceId, long fencingToken, String reason)
      implements SlotEvent {}
}
