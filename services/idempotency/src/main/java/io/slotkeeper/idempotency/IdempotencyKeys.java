package io.slotkeeper.idempotency;

/** What a valid Idempotency-Key is (draft-ietf-httpapi-idempotency-key-header). */
public final class IdempotencyKeys {

  public static final int MAX_LENGTH = 255;

  private IdempotencyKeys() {}

  /** Null when the key is acceptable, else why it is not. */
  public static String problemWith(String key) {
    if (key == null || key.isBlank()) {
      return "the Idempotency-Key header is required on this request";
    }
    if (key.length() > MAX_LENGTH) {
      return "the Idempotency-Key must be at most " + MAX_LENGTH + " characters";
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return "the Idempotency-Key must be printable ASCII";
      }
    }
    return null;
  }
}
