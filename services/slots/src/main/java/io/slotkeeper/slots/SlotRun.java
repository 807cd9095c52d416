package io.slotkeeper.slots;

import java.time.Instant;
import java.util.Map;

/**
 * One attempt at one slot, as a job handler sees it.
 *
 * @param job the job's name
 * @param nominal the slot's nominal instant (not the time it fired)
 * @param slotId the slot's ledger ID
 * @param attempt 1 for the first attempt, then retries and takeovers
 * @param params the job's parameters from the jobs file
 * @param fencingToken the lease fencing token the attempt was fired under (0 when unknown)
 */
public record SlotRun(
    String job,
    Instant nominal,
    String slotId,
    int attempt,
    Map<String, String> params,
    long fencingToken) {

  /** An attempt whose fencing token the handler does not need. */
  public SlotRun(
      String job, Instant nominal, String slotId, int attempt, Map<String, String> params) {
    this(job, nominal, slotId, attempt, params, 0);
  }

  /** The ID of the command this slot sends to {@code target}: the same on every attempt. */
  public String commandId(String target) {
    return SlotCommands.commandId(job, nominal, target);
  }

  /** A parameter, or the fallback when the jobs file does not set it. */
  public String param(String name, String fallback) {
    return params.getOrDefault(name, fallback);
  }
}
