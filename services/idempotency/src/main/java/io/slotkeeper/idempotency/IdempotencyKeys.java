package io.slotkeeper.idempotency;

/**
 * What a valid Idempotency-Key is (draft-ietf-httpapi-idempotency-key-header): 1 to 255 printable
 * ASCII characters, 0x20 to 0x7E (the characters an sf-string of the draft allows), not blank. The
 * same rule holds over HTTP and gRPC. Header values reach us one byte per char (Netty decodes them
 * as ISO-8859-1), so a non-ASCII key sent as UTF-8 or Latin-1 shows up as chars above 0x7E and is
 * refused here.
 */
public final class IdempotencyKeys {

  public static final int MAX_LENGTH = 255;

  private IdempotencyKeys() {}

  /**
   * The key as both protocols read it: without the spaces and tabs around it. HTTP/1.1 cannot carry
   * them (a header value's surrounding whitespace is not part of it), so gRPC's field and metadata,
   * and HTTP/2's header, drop them too: {@code " k "} and {@code "k"} are one key everywhere.
   */
  public static String normalize(String raw) {
    if (raw == null) {
      return null;
    }
    int start = 0;
    int end = raw.length();
    while (start < end && (raw.charAt(start) == ' ' || raw.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (raw.charAt(end - 1) == ' ' || raw.charAt(end - 1) == '\t')) {
      end--;
    }
    return raw.substring(start, end);
  }

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
        return "the Idempotency-Key must be printable ASCII (0x20 to 0x7E); character "
            + (i + 1)
            + " is not (no control or non-ASCII characters)";
      }
    }
    return null;
  }
}
