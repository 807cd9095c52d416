package io.slotkeeper.commands;

/**
 * Another transaction recorded the same command ID first; the command service re-reads the ledger
 * and answers with that transaction's outcome.
 */
public class ConcurrentDuplicateException extends RuntimeException {

  public ConcurrentDuplicateException(String commandId, Throwable cause) {
    super("command " + commandId + " was applied concurrently by another transaction", cause);
  }
}
