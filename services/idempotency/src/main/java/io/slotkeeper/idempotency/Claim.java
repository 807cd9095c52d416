package io.slotkeeper.idempotency;

/** The answer to "may I execute the request under this key?". */
public sealed interface Claim {

  /** The key is ours: execute, then complete or release it. */
  record Acquired() implements Claim {}

  /**
   * No live request holds the key (found by a lookup, which writes nothing): execute, and save the
   * response with the command (see {@link IdempotencyStore#lookup}).
   */
  record Free() implements Claim {}

  /** The key's first request finished: answer with its response. */
  record Replay(StoredResponse response) implements Claim {}

  /** The key's first request is still being executed (HTTP 409). */
  record InFlight() implements Claim {}

  /** The key was used for another request (other operation or payload): HTTP 422. */
  record Mismatch(String firstOperation) implements Claim {}
}
