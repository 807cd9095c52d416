package io.slotkeeper.delivery;

import java.time.Duration;
import java.util.Map;

/**
 * The delivery's settings, read once from the environment at start-up; a bad value is an {@link
 * IllegalArgumentException} naming the variable.
 *
 * @param allow {@code SLOTKEEPER_HTTP_TARGETS_ALLOW}: the hosts targets may call
 * @param perHost {@code SLOTKEEPER_HTTP_TARGETS_PER_HOST}: deliveries in flight per host:port (8)
 * @param maxQueued {@code SLOTKEEPER_HTTP_TARGETS_QUEUE}: deliveries waiting per host:port (1000)
 * @param maxWait how long a delivery waits for its turn before its attempt fails (30 s)
 */
public record DeliverySettings(String allow, int perHost, int maxQueued, Duration maxWait) {

  public static final int DEFAULT_PER_HOST = 8;
  public static final int DEFAULT_MAX_QUEUED = 1000;
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

  /** The settings of {@code env} (the process environment, or a test's map). */
  public static DeliverySettings from(Map<String, String> env) {
    return new DeliverySettings(
        env.getOrDefault(TargetGuard.ALLOW_VARIABLE, ""),
        positive(env, "SLOTKEEPER_HTTP_TARGETS_PER_HOST", DEFAULT_PER_HOST),
        positive(env, "SLOTKEEPER_HTTP_TARGETS_QUEUE", DEFAULT_MAX_QUEUED),
        DEFAULT_MAX_WAIT);
  }

  private static int positive(Map<String, String> env, String name, int fallback) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + " must be a positive whole number, got '" + v + "'");
  }
}
