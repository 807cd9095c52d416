package io.slotkeeper.commands;

/**
 * The command was sent for a version of the aggregate that is no longer its current one (HTTP 412,
 * gRPC FAILED_PRECONDITION). The message names both versions, so the caller can read again.
 */
public class StaleVersionException extends CommandRefused {

  private final long current;

  public StaleVersionException(String aggregateId, long expected, long current) {
    super(
        Kind.STALE_VERSION,
        aggregateId + " is at version " + current + ", not " + expected + "; read it again");
    this.current = current;
  }

  /** The aggregate's current version. */
  public long current() {
    return current;
  }
}
