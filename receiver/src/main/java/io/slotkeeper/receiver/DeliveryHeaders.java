package io.slotkeeper.receiver;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The headers slotkeeper sends on every attempt of an HTTP target's slot, and how a receiver reads
 * them into a {@link Delivery}.
 */
public final class DeliveryHeaders {

  /** The same on every attempt of a slot (instances and retries): v5(schedule, nominal, "http"). */
  public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

  /** The schedule's name. */
  public static final String SCHEDULE = "Slotkeeper-Schedule";

  /** The slot's nominal time, ISO-8601 in UTC ({@code 2026-01-01T00:00:00Z}). */
  public static final String SLOT = "Slotkeeper-Slot";

  /** The attempt's number, from 1. */
  public static final String ATTEMPT = "Slotkeeper-Attempt";

  /**
   * The sender's lease fencing token: a receiver refuses one lower than the highest it has seen.
   */
  public static final String FENCING_TOKEN = "Slotkeeper-Fencing-Token";

  /** {@code t=<unix seconds>,v1=<hex HMAC-SHA256>}: see {@link Signature}. */
  public static final String SIGNATURE = "Slotkeeper-Signature";

  private static final int MAX_TEXT = 255;

  private DeliveryHeaders() {}

  /**
   * Reads a delivery from its headers ({@code header} returns a header's value or null) and body.
   * Does not check the signature: {@link Signature#verify} does.
   *
   * @throws InvalidDeliveryException naming every missing or bad header
   */
  public static Delivery read(UnaryOperator<String> header, byte[] body) {
    Map<String, String> errors = new LinkedHashMap<>();
    String key = text(header, IDEMPOTENCY_KEY, errors);
    String schedule = text(header, SCHEDULE, errors);
    Instant slot = null;
    String slotText = required(header, SLOT, errors);
    if (slotText != null) {
      try {
        slot = Instant.parse(slotText);
      } catch (DateTimeParseException e) {
        errors.put(SLOT, "must be an ISO-8601 instant such as 2026-01-01T00:00:00Z");
      }
    }
    long attempt = number(header, ATTEMPT, 1, Integer.MAX_VALUE, errors);
    long token = number(header, FENCING_TOKEN, 0, Long.MAX_VALUE, errors);
    if (!errors.isEmpty()) {
      throw new InvalidDeliveryException(errors);
    }
    return new Delivery(key, schedule, slot, (int) attempt, token, body);
  }

  private static String required(
      UnaryOperator<String> header, String name, Map<String, String> errors) {
    String value = header.apply(name);
    if (value == null || value.isBlank()) {
      errors.put(name, "is required");
      return null;
    }
    return value.strip();
  }

  /** 1 to 255 printable ASCII characters (header bytes arrive one char per byte). */
  private static String text(
      UnaryOperator<String> header, String name, Map<String, String> errors) {
    String value = required(header, name, errors);
    if (value == null) {
      return null;
    }
    if (value.length() > MAX_TEXT) {
      errors.put(name, "must be at most " + MAX_TEXT + " characters");
      return null;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        errors.put(name, "must be printable ASCII; character " + (i + 1) + " is not");
        return null;
      }
    }
    return value;
  }

  private static long number(
      UnaryOperator<String> header, String name, long min, long max, Map<String, String> errors) {
    String value = required(header, name, errors);
    if (value == null) {
      return min;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    errors.put(name, "must be a whole number from " + min + " to " + max);
    return min;
  }

  /** A delivery whose headers are missing or bad: a 400 naming each of them. */
  public static final class InvalidDeliveryException extends IllegalArgumentException {

    private final Map<String, String> errors;

    InvalidDeliveryException(Map<String, String> errors) {
      super("bad delivery headers: " + errors);
      this.errors = Map.copyOf(errors);
    }

    /** Each bad header's name, with what is wrong with it. */
    public Map<String, String> errors() {
      return errors;
    }
  }
}
