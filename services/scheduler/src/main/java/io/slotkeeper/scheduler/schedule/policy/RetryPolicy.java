package io.slotkeeper.scheduler.schedule.policy;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How often a failed slot run is retried, with exponential backoff. Retries are safe because a
 * slot's commands carry the slot's deterministic IDs: a retry of a run that did commit is a
 * duplicate, not a second effect.
 *
 * @param maxAttempts attempts in all, the first one included
 * @param initialBackoff delay before the second attempt
 * @param multiplier factor between consecutive delays
 * @param maxBackoff cap of every delay
 */
public record RetryPolicy(
    int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff) {

  /** Three attempts, 1 s then 2 s apart, never more than a minute. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(3, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1));

  /** Validates. */
  public RetryPolicy {
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    if (initialBackoff.isNegative() || maxBackoff.isNegative()) {
      throw new IllegalArgumentException("backoff must not be negative");
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("multiplier must be at least 1, got " + multiplier);
    }
  }

  /**
   * The delay before attempt number {@code attempt} (1-based): zero for the first, {@code
   * initialBackoff * multiplier^(attempt-2)} capped at {@code maxBackoff} after that, empty once
   * the attempts are used up.
   */
  public Optional<Duration> delayBefore(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempts count from 1, got " + attempt);
    }
    if (attempt > maxAttempts) {
      return Optional.empty();
    }
    if (attempt == 1) {
      return Optional.of(Duration.ZERO);
    }
    double millis = initialBackoff.toMillis() * Math.pow(multiplier, attempt - 2);
    // Compared as doubles first: a large attempt number overflows a long, not the cap.
    if (millis >= maxBackoff.toMillis()) {
      return Optional.of(maxBackoff);
    }
    return Optional.of(Duration.ofMillis(Math.round(millis)));
  }
}
