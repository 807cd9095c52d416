package io.slotkeeper.slots;

import java.time.Duration;
import java.util.Optional;

/**
 * A handler's failed attempt that says how it may be retried: not at all (the target refused the
 * work for good, e.g. an HTTP 404), or not before a delay the target asked for (an HTTP {@code
 * Retry-After}). Any other exception fails the attempt under the schedule's retry policy.
 */
public final class AttemptFailedException extends Exception {

  private static final long serialVersionUID = 1L;

  private final boolean retryable;
  private final transient Duration retryAfter;

  private AttemptFailedException(String message, boolean retryable, Duration retryAfter) {
    super(message, null, false, false);
    this.retryable = retryable;
    this.retryAfter = retryAfter;
  }

  /** An attempt that retrying cannot fix: the slot fails with no further attempt from here. */
  public static AttemptFailedException permanent(String message) {
    return new AttemptFailedException(message, false, null);
  }

  /** An attempt to retry under the retry policy, but not before {@code delay}. */
  public static AttemptFailedException retryAfter(String message, Duration delay) {
    return new AttemptFailedException(message, true, delay);
  }

  /** An attempt to retry under the retry policy. */
  public static AttemptFailedException retryable(String message) {
    return new AttemptFailedException(message, true, null);
  }

  /** Whether the retry policy may retry the slot. */
  public boolean retryable() {
    return retryable;
  }

  /** The shortest delay before the next attempt, when the target asked for one. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
