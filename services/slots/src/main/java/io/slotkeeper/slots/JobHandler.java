package io.slotkeeper.slots;

import java.util.Map;

/**
 * The work of one job for one slot. It runs on a worker thread (it may block on JDBC or wait for
 * commands) and returns its effect counts, which the ledger records with the slot's completion.
 *
 * <p>Exactly once in effect depends on one rule: every command a handler sends takes its ID from
 * the slot ({@link SlotRun#commandId(String)}) or from the target it acts on, never from
 * randomness. A retried, re-fired or taken-over slot then re-sends the same commands, and the
 * ledger answers the ones already applied with "duplicate".
 */
@FunctionalInterface
public interface JobHandler {

  /** Does the slot's work; throws to fail the attempt (it is retried under the same IDs). */
  Map<String, Long> run(SlotRun run) throws Exception;
}
