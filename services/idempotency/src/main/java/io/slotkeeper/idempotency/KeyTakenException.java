package io.slotkeeper.idempotency;

import io.slotkeeper.platform.axon.CallerRefusal;

/**
 * A command transaction could not save the response of a looked-up key: another request (another
 * operation or body, or a rejection saved first) took the key after the lookup. Thrown at commit,
 * so the transaction and its command roll back; the request answers with the key's holder instead.
 */
public final class KeyTakenException extends RuntimeException implements CallerRefusal {

  KeyTakenException(int keys) {
    super(
        "an Idempotency-Key was taken by another request while its command ran (one of "
            + keys
            + " keys saved at this commit)",
        null,
        false,
        false);
  }
}
