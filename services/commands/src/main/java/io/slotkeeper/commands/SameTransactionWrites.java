package io.slotkeeper.commands;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.axonframework.commandhandling.CommandMessage;

/**
 * The {@link SameTransactionWrite}s of the command messages on their way, by message identifier
 * (unique per attempt): the sender registers one before dispatching, the ledger interceptor runs it
 * in the transaction, the sender removes it when answered. Kept out of the message's metadata,
 * which the events carry into the store.
 */
public final class SameTransactionWrites {

  private final Map<String, SameTransactionWrite> byMessage = new ConcurrentHashMap<>();

  /** Registers {@code write} (if any) for {@code message}; returns the message. */
  <C extends CommandMessage<?>> C register(C message, SameTransactionWrite write) {
    if (write != null) {
      byMessage.put(message.getIdentifier(), write);
    }
    return message;
  }

  void remove(CommandMessage<?> message) {
    byMessage.remove(message.getIdentifier());
  }

  /** Runs the write registered for the message that applied, if any. */
  void applied(CommandMessage<?> message, CommandOutcome<?> outcome) {
    SameTransactionWrite write = byMessage.get(message.getIdentifier());
    if (write != null) {
      write.applied(outcome);
    }
  }
}
