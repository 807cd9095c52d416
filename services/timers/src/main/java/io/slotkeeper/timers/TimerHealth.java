package io.slotkeeper.timers;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * What one job's timer knows about its own progress, for {@code /health/ready} and the metrics:
 * when it last fired or recorded a slot, and the last fault of each of its steps. Written on the
 * timer's event loop, read by scrapes and health checks on other threads (hence volatile).
 */
public final class TimerHealth {

  /** The timer's steps that talk to PostgreSQL or Redis; each fault is counted by step. */
  public enum Step {
    LEASE_ACQUIRE,
    LEASE_RENEW,
    LEASE_RELEASE,
    PAUSE_STATE,
    CURSOR,
    FIRE,
    MISS,
    SKIP,
    COMPLETE,
    TAKEOVER;

    /** The metric's tag value. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * A failed step of a timer (of a job, or of a partition's lease), named for the metrics; its
   * cause is the fault itself.
   */
  static final class StepFault extends RuntimeException {
    final String subject;
    final Step step;

    StepFault(String subject, Step step, Throwable cause) {
      super(subject + ": " + step.tag() + " failed: " + cause, cause);
      this.subject = subject;
      this.step = step;
    }
  }

  /** The last fault: which step, what, when. */
  public record Fault(Step step, String error, Instant at) {}

  /** A job's timer state as reported: stalled since when (if stalled), and its last fault. */
  public record Report(
      boolean held, Optional<Instant> stalledSince, Optional<Fault> lastFault, boolean failing) {}

  private final String job;
  private final Schedule schedule;
  private final SlotkeeperMetrics metrics;
  private volatile Instant progressAt;
  private volatile boolean held;
  private volatile Fault lastFault;
  // Set by a fault, cleared by the next success of a maintenance: the timer is failing right now.
  private volatile boolean failing;
  private Instant unableSince;
  private volatile StallPoint stallPoint;

  /** Also creates the job's fault counters at zero: this instance now runs the job's timer. */
  TimerHealth(String job, Schedule schedule, SlotkeeperMetrics metrics) {
    this.job = job;
    this.schedule = schedule;
    this.metrics = metrics;
    metrics.registerTimerErrors(job, Arrays.stream(Step.values()).map(Step::tag).toList());
  }

  /** The lease was gained ({@code true}) or is gone: progress is measured from a gain. */
  void held(boolean nowHeld, Instant now) {
    if (nowHeld && !held) {
      progressAt = now;
    }
    held = nowHeld;
  }

  /** A due slot was fired or recorded (missed, skipped): the timer moves. */
  void progressed(Instant now) {
    progressAt = now;
  }

  /** A step failed: counted, and remembered as the last fault. */
  void fault(Step step, Throwable error, Instant now) {
    metrics.timerError(job, step.tag());
    lastFault = new Fault(step, String.valueOf(error), now);
    failing = true;
  }

  /** A maintenance went through every step. */
  void maintained() {
    failing = false;
  }

  /**
   * Whether the lease held here is of no use: the timer could not plan (no resume point) for longer
   * than {@code patience}, or the job stalled. Measured from the first such maintenance.
   */
  boolean unusable(boolean canPlan, Duration patience, Instant now) {
    if (!held || canPlan) {
      unableSince = null;
    } else if (unableSince == null) {
      unableSince = now;
    }
    boolean unable =
        unableSince != null && Duration.between(unableSince, now).compareTo(patience) > 0;
    if (unable || (held && stalled(now))) {
      unableSince = null;
      return true;
    }
    return false;
  }

  /** The timer waits for its cursor's first load: progress and patience count from its end. */
  void waiting() {
    unableSince = null;
  }

  /** Whether the job is stalled on this instance: see {@link #stalledSince(Instant)}. */
  boolean stalled(Instant now) {
    return stalledSince(now).isPresent();
  }

  /**
   * While this instance holds the lease: the nominal instant of the oldest slot that fell due after
   * the timer's last progress, when two more periods have passed since without progress (the slot
   * and the next one both went by). Empty when not holding the lease or not stalled.
   */
  Optional<Instant> stalledSince(Instant now) {
    Instant from = progressAt;
    if (!held || from == null) {
      return Optional.empty();
    }
    StallPoint p = stallPoint;
    if (p == null || !p.from().equals(from)) {
      // Computed once per progress, not per check: every upkeep, scrape and readiness probe asks
      // each hosted schedule, and a cron step costs tens of microseconds (10,000 schedules made a
      // probe take over 2 s).
      Optional<Instant> first = schedule.nextAfter(from);
      p =
          new StallPoint(
              from, first, first.flatMap(schedule::nextAfter).flatMap(schedule::nextAfter));
      stallPoint = p;
    }
    return p.third().isPresent() && !now.isBefore(p.third().get()) ? p.first() : Optional.empty();
  }

  /** After progress at {@code from}: the next slot, and the one two periods later. */
  private record StallPoint(Instant from, Optional<Instant> first, Optional<Instant> third) {}

  /** The state as reported by health checks. */
  public Report report(Instant now) {
    return new Report(held, stalledSince(now), Optional.ofNullable(lastFault), failing);
  }
}
