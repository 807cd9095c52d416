package io.slotkeeper.events.slots;

/** Where a slot stands in the ledger. */
public enum SlotStatus {
  /** An instance fired it and is running its work. */
  FIRED,
  /** Its work finished; its effects are recorded once. */
  COMPLETED,
  /** Its last attempt failed; it may be retried under the same IDs. */
  FAILED,
  /** Not run because the previous run of the job was still going (overlap policy). */
  SKIPPED,
  /** Not run because it was outside the job's catch-up window. */
  MISSED
}
