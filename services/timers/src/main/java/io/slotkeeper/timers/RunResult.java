package io.slotkeeper.timers;

import io.slotkeeper.slots.SlotSnapshot;
import java.time.Duration;
import java.util.Map;

/**
 * What became of one fire of a slot.
 *
 * @param outcome COMPLETED, FAILED, or DUPLICATE (the ledger refused the fire: already ran, or runs
 *     elsewhere under a newer token; nothing was done here)
 * @param retryable false when the handler said a failed attempt is not to be retried
 * @param retryAfter the shortest delay before the next attempt the handler asked for, or null
 */
public record RunResult(
    SlotSnapshot slot,
    Outcome outcome,
    Map<String, Long> counts,
    String error,
    long durationMillis,
    boolean retryable,
    Duration retryAfter) {

  /** A result that follows the retry policy alone. */
  public RunResult(
      SlotSnapshot slot,
      Outcome outcome,
      Map<String, Long> counts,
      String error,
      long durationMillis) {
    this(slot, outcome, counts, error, durationMillis, true, null);
  }

  /** The three ends of a fire. */
  public enum Outcome {
    COMPLETED,
    FAILED,
    DUPLICATE
  }
}
