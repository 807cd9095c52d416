package io.slotkeeper.events.schedules;

import java.util.Map;

/**
 * What a schedule is, as stored in its events and the {@code schedules} read table: plain
 * JSON-friendly values in the shape of a jobs-file job and of the API's body, with every default
 * filled in (so two definitions that fire alike are equal). Durations are ISO-8601 text, instants
 * ISO-8601 instants.
 *
 * @param name the schedule's name; part of every slot ID
 * @param schedule when it fires: {@code every} (with an optional {@code anchor}) or {@code cron}
 * @param zone the time zone of a cron
 * @param enabled false keeps the schedule without firing it
 * @param catchUp what happens to slots missed while no instance ran it
 * @param overlap {@code SKIP} or {@code ALLOW} when a slot is due while the last one runs
 * @param dst what a cron does on the days clocks change
 * @param retry how a failed slot is retried
 * @param leaseTtl how long one instance holds the schedule's lease
 * @param handler the code that does the work
 * @param params settings the handler reads
 * @param target the HTTP endpoint the schedule calls (handler {@code http}), or null. It holds no
 *     secret: {@code secretRef} names the environment variable the secret is read from at delivery
 */
public record ScheduleDefinition(
    String name,
    Timing schedule,
    String zone,
    boolean enabled,
    CatchUp catchUp,
    String overlap,
    Dst dst,
    Retry retry,
    String leaseTtl,
    String handler,
    Map<String, String> params,
    Target target) {

  /** A definition without an HTTP target. */
  public ScheduleDefinition(
      String name,
      Timing schedule,
      String zone,
      boolean enabled,
      CatchUp catchUp,
      String overlap,
      Dst dst,
      Retry retry,
      String leaseTtl,
      String handler,
      Map<String, String> params) {
    this(
        name, schedule, zone, enabled, catchUp, overlap, dst, retry, leaseTtl, handler, params,
        null);
  }

  /** Copies the params. */
  public ScheduleDefinition {
    params = params == null ? Map.of() : Map.copyOf(params);
  }

  /**
   * An HTTP target: {@code type} is {@code http}; {@code timeout} ISO-8601; {@code secretRef} the
   * name {@code X} of the environment variable {@code SLOTKEEPER_SECRET_X}; {@code maxPerSecond}
   * null for no rate limit.
   */
  public record Target(
      String type,
      String url,
      String method,
      Map<String, String> headers,
      String body,
      String timeout,
      String secretRef,
      Integer maxPerSecond) {

    /** Copies the headers. */
    public Target {
      headers = headers == null ? Map.of() : Map.copyOf(headers);
    }
  }

  /** Exactly one of {@code every} and {@code cron}; {@code anchor} only with {@code every}. */
  public record Timing(String every, String anchor, String cron) {}

  /** Catch-up policy ({@code LATEST}, {@code ALL}, {@code NONE}) and how far back it reaches. */
  public record CatchUp(String policy, String window) {}

  /** What a cron does in a skipped ({@code gap}) and a repeated ({@code overlap}) hour. */
  public record Dst(String gap, String overlap) {}

  /** Attempts and back-off of a failed slot. */
  public record Retry(
      int maxAttempts, String initialBackoff, double multiplier, String maxBackoff) {}
}
