package io.slotkeeper.scheduler.schedule.job;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The HTTP endpoint a schedule calls on every attempt of a slot (its handler is {@link #HANDLER}).
 * It holds no secret: {@code secretRef} names the environment variable {@code
 * SLOTKEEPER_SECRET_<secretRef>} read at delivery time, so nothing secret is ever stored or
 * answered.
 *
 * @param url absolute http or https URL
 * @param method GET, POST, PUT, PATCH or DELETE
 * @param headers extra request headers (never the {@code Slotkeeper-*}, {@code Idempotency-Key} or
 *     {@code Host} headers, which the delivery sets)
 * @param body the body template: {@code {{schedule}}}, {@code {{slot}}}, {@code {{attempt}}} and
 *     {@code {{slotId}}} are replaced by the slot's values
 * @param timeout how long one attempt waits for the answer
 * @param secretRef the secret's name, or null to send no signature
 * @param maxPerSecond at most this many deliveries per second for the schedule, or 0 for no limit
 */
public record HttpTarget(
    URI url,
    String method,
    Map<String, String> headers,
    String body,
    Duration timeout,
    String secretRef,
    int maxPerSecond) {

  /** The handler name of a schedule with an HTTP target. */
  public static final String HANDLER = "http";

  /** The only target type. */
  public static final String TYPE = "http";

  /** The methods a target may use. */
  public static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

  /** The slot's fields a body template may name. */
  public static final Set<String> PLACEHOLDERS = Set.of("schedule", "slot", "attempt", "slotId");

  /** An attempt's timeout when none is given. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** The longest timeout of an attempt. */
  public static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

  /** The prefix of the environment variable that holds a {@code secretRef}'s secret. */
  public static final String SECRET_ENV_PREFIX = "SLOTKEEPER_SECRET_";

  /** Copies the headers. */
  public HttpTarget {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(timeout, "timeout");
    headers = Map.copyOf(headers);
    body = body == null ? "" : body;
  }

  /** {@code host:port} of the URL, the port filled in from the scheme. */
  public String hostPort() {
    return url.getHost() + ":" + port();
  }

  /** The URL's port, or the scheme's default. */
  public int port() {
    return url.getPort() != -1 ? url.getPort() : "https".equals(url.getScheme()) ? 443 : 80;
  }

  /** The environment variable that holds the secret, if the target signs. */
  public String secretVariable() {
    return secretRef == null ? null : SECRET_ENV_PREFIX + secretRef;
  }
}
