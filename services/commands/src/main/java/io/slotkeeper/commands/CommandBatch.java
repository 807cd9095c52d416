package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import java.util.List;

/**
 * Commands for different aggregates applied in one transaction (see {@link CommandBatcher}): one
 * commit, one event append and one ledger insert for all of them. All or none are applied.
 */
record CommandBatch(List<Entry> entries) {

  /**
   * One command; {@code creating} sends it as a creation (see {@link CommandService}); {@code
   * write} (may be null) runs in the batch's transaction if the command applies.
   */
  record Entry(Command command, boolean creating, SameTransactionWrite write) {}

  CommandBatch {
    entries = List.copyOf(entries);
  }

  /** The outcomes, in the order of the entries. */
  record Outcomes(List<CommandOutcome<?>> outcomes) {}
}
