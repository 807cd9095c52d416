package io.slotkeeper.idempotency;

import io.slotkeeper.commands.CommandRefused;

/**
 * A command transaction could not save the response of a looked-up key: another request (another
 * operation or body, or a rejection saved first) took the key after the lookup. Thrown at commit,
 * so the transaction and its command roll back; the request answers with the key's holder instead.
 * Counted as a rejected command, not a failed one: the alert on failed commands stays about the
 * infrastructure.
 */
public final class KeyTakenException extends CommandRefused {

  KeyTakenException(int keys) {
    super(
        Kind.RULE_VIOLATED,
        "Idempotency-Key taken",
        "an Idempotency-Key was taken by another request while its command ran (one of "
            + keys
            + " keys saved at this commit)",
        false);
  }
}
