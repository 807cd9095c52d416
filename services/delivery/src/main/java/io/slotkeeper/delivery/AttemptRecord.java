package io.slotkeeper.delivery;

import java.time.Duration;
import java.time.Instant;

/**
 * One attempt of a delivery as recorded in {@code delivery_attempts}.
 *
 * @param status the HTTP status, or null when no answer came
 * @param error what went wrong, or null
 * @param responseHead the first 1 KiB of the answer's body (UTF-8, cut at a character)
 * @param retryAfter the answer's Retry-After, or null
 */
public record AttemptRecord(
    String slotId,
    int attempt,
    long fencingToken,
    String instanceId,
    String schedule,
    Instant nominal,
    String idempotencyKey,
    String url,
    Outcome outcome,
    Integer status,
    Duration latency,
    String error,
    String responseHead,
    Duration retryAfter,
    Instant sentAt) {

  /** The largest answer recorded, in bytes. */
  public static final int RESPONSE_HEAD_BYTES = 1024;

  /** How an attempt ended; the metric's {@code outcome} label is the lower-case name. */
  public enum Outcome {
    /** 2xx: the slot completes. */
    DELIVERED,
    /** 408, 429 or 5xx: retried under the retry policy. */
    RETRY_STATUS,
    /** No answer within the target's timeout: retried. */
    TIMEOUT,
    /** No connection, or it broke: retried. */
    CONNECTION_ERROR,
    /** Another 4xx: the slot fails with no retry. */
    REFUSED,
    /** 409: the receiver saw a newer fencing token; this holder does not retry. */
    STALE,
    /** The SSRF guard refused the resolved address: no retry. */
    BLOCKED,
    /** The secret's environment variable is not set: no retry. */
    NO_SECRET;

    /** The metric label. */
    public String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** How an HTTP status ends an attempt. */
  public static Outcome classify(int status) {
    if (status >= 200 && status < 300) {
      return Outcome.DELIVERED;
    }
    if (status == 408 || status == 429 || status >= 500) {
      return Outcome.RETRY_STATUS;
    }
    if (status == 409) {
      return Outcome.STALE;
    }
    return Outcome.REFUSED;
  }
}
