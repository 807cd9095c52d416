package io.slotkeeper.scheduler.schedule.job;

import io.slotkeeper.scheduler.schedule.DstPolicy;
import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPolicy;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy;
import io.slotkeeper.scheduler.schedule.policy.RetryPolicy;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;

/**
 * One scheduled job, as configured. {@code zone} and {@code dstPolicy} are already part of a cron
 * {@code schedule}; they are kept here too so operators and logs see them for every job.
 *
 * @param name unique name; part of every slot ID, so renaming a job starts new slots
 * @param leaseTtl how long one instance holds the job's lease before another may take over
 * @param params free-form settings the job's handler reads (e.g. {@code stuckAfter})
 * @param handler the name of the code that does the work; the job's name unless the file says
 *     otherwise, so several jobs can run one handler with different parameters; {@code http} for a
 *     schedule with a target
 * @param target the HTTP endpoint the job calls, or null for a job run by in-process code
 */
public record JobDefinition(
    String name,
    Schedule schedule,
    ZoneId zone,
    boolean enabled,
    CatchUpPolicy catchUpPolicy,
    Duration catchUpWindow,
    OverlapPolicy overlapPolicy,
    DstPolicy dstPolicy,
    RetryPolicy retryPolicy,
    Duration leaseTtl,
    Map<String, String> params,
    String handler,
    HttpTarget target) {

  /** Catch-up window when none is given. */
  public static final Duration DEFAULT_CATCH_UP_WINDOW = Duration.ofMinutes(10);

  /** Lease TTL when none is given. */
  public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(10);

  /** A job run by in-process code (no HTTP target). */
  public JobDefinition(
      String name,
      Schedule schedule,
      ZoneId zone,
      boolean enabled,
      CatchUpPolicy catchUpPolicy,
      Duration catchUpWindow,
      OverlapPolicy overlapPolicy,
      DstPolicy dstPolicy,
      RetryPolicy retryPolicy,
      Duration leaseTtl,
      Map<String, String> params,
      String handler) {
    this(
        name,
        schedule,
        zone,
        enabled,
        catchUpPolicy,
        catchUpWindow,
        overlapPolicy,
        dstPolicy,
        retryPolicy,
        leaseTtl,
        params,
        handler,
        null);
  }

  /** Validates and copies the params. */
  public JobDefinition {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("name must not be blank");
    }
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(catchUpPolicy, "catchUpPolicy");
    Objects.requireNonNull(overlapPolicy, "overlapPolicy");
    Objects.requireNonNull(dstPolicy, "dstPolicy");
    Objects.requireNonNull(retryPolicy, "retryPolicy");
    if (catchUpWindow.isNegative()) {
      throw new IllegalArgumentException("catchUpWindow must not be negative");
    }
    if (leaseTtl.isNegative() || leaseTtl.isZero()) {
      throw new IllegalArgumentException("leaseTtl must be positive");
    }
    params = Map.copyOf(params);
    if (target != null) {
      handler = HttpTarget.HANDLER;
    } else if (handler == null || handler.isBlank()) {
      handler = name;
    }
  }
}
