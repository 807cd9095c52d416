package io.slotkeeper.commands;

/**
 * Work a command's sender adds to the transaction that applies the command, so that it commits
 * exactly when the command's events and ledger row do (e.g. the saved response of the request's
 * Idempotency-Key: one round trip and one transaction less per request, and the answer is as
 * durable as the command).
 *
 * <p>It runs on the command thread, inside the transaction, right after the command applied: never
 * for a duplicate, a refusal or an attempt that fails; an attempt that rolls back rolls it back
 * too, and the next attempt runs it again. It must not block on anything but the transaction's own
 * connection; queue rows with {@link io.slotkeeper.platform.axon.CommitQueues} to write one batch.
 */
@FunctionalInterface
public interface SameTransactionWrite {

  /** Called inside the applying transaction with the command's outcome (never a duplicate). */
  void applied(CommandOutcome<?> outcome);
}
