package io.slotkeeper.timers;

import io.slotkeeper.slots.SlotSnapshot;
import java.util.Map;

/**
 * What became of one fire of a slot.
 *
 * @param outcome COMPLETED, FAILED, or DUPLICATE (the ledger refused the fire: already ran, or runs
 *     elsewhere under a newer token; nothing was done here)
 */
public record RunResult(
    SlotSnapshot slot,
    Outcome outcome,
    Map<String, Long> counts,
    String error,
    long durationMillis) {

  /** The three ends of a fire. */
  public enum Outcome {
    COMPLETED,
    FAILED,
    DUPLICATE
  }
}
