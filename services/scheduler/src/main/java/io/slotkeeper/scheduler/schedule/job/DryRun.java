package io.slotkeeper.scheduler.schedule.job;

import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.Slots;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a change of a schedule would do, computed and not applied: the slots the proposed definition
 * would fire in a window beside those the current one would, and the clock changes of the window
 * with what each definition's DST policy does there. A pure function of its inputs.
 */
public final class DryRun {

  /** At most this many slots are listed per definition. */
  public static final int MAX_SLOTS = 1_000;

  /** Slots listed around a clock change: this far on either side of it. */
  static final Duration AROUND_CHANGE = Duration.ofHours(2);

  private DryRun() {}

  /**
   * The comparison over {@code (from, from + window]}.
   *
   * @param current the schedule as it is (empty for a create)
   * @param proposed the schedule as it would be
   * @param truncated whether a list stopped at {@link #MAX_SLOTS}
   */
  public record Result(
      Instant from,
      Instant to,
      List<Instant> current,
      List<Instant> proposed,
      boolean truncated,
      List<ClockChange> clockChanges) {}

  /**
   * A clock change in the window, as one definition's zone and policy see it.
   *
   * @param definition {@code current} or {@code proposed}
   * @param kind {@code GAP} (local times skipped) or {@code OVERLAP} (local times repeated)
   * @param localFrom the first local time skipped or repeated
   * @param localTo the first local time after them
   * @param policy the DST policy that applies ({@code gap} or {@code overlap} of the definition)
   * @param slots the definition's slots within two hours of the change
   */
  public record ClockChange(
      String definition,
      String zone,
      Instant at,
      String kind,
      LocalDateTime localFrom,
      LocalDateTime localTo,
      String policy,
      List<Instant> slots) {}

  /** Compares the two definitions over the window that starts after {@code from}. */
  public static Result compare(
      Optional<JobDefinition> current, JobDefinition proposed, Instant from, Duration window) {
    Instant to = from.plus(window);
    List<Instant> now =
        current.map(j -> Slots.between(j.schedule(), from, to, MAX_SLOTS + 1)).orElse(List.of());
    List<Instant> next = Slots.between(proposed.schedule(), from, to, MAX_SLOTS + 1);
    boolean truncated = now.size() > MAX_SLOTS || next.size() > MAX_SLOTS;
    List<ClockChange> changes = new ArrayList<>();
    current.ifPresent(j -> changes.addAll(clockChanges("current", j, from, to)));
    changes.addAll(clockChanges("proposed", proposed, from, to));
    return new Result(
        from,
        to,
        now.subList(0, Math.min(now.size(), MAX_SLOTS)),
        next.subList(0, Math.min(next.size(), MAX_SLOTS)),
        truncated,
        changes);
  }

  /** The clock changes of a cron's zone in (from, to]; an interval never meets one. */
  static List<ClockChange> clockChanges(String which, JobDefinition job, Instant from, Instant to) {
    List<ClockChange> out = new ArrayList<>();
    if (!(job.schedule() instanceof CronSchedule)) {
      return out;
    }
    CronSchedule cron = (CronSchedule) job.schedule();
    ZoneId zone = cron.zone();
    Instant t = from;
    ZoneOffsetTransition change;
    while ((change = zone.getRules().nextTransition(t)) != null
        && !change.getInstant().isAfter(to)) {
      Instant at = change.getInstant();
      boolean gap = change.isGap();
      out.add(
          new ClockChange(
              which,
              zone.getId(),
              at,
              gap ? "GAP" : "OVERLAP",
              gap ? change.getDateTimeBefore() : change.getDateTimeAfter(),
              gap ? change.getDateTimeAfter() : change.getDateTimeBefore(),
              gap ? cron.dst().gap().name() : cron.dst().overlap().name(),
              Slots.between(cron, at.minus(AROUND_CHANGE), at.plus(AROUND_CHANGE), MAX_SLOTS)));
      t = at;
    }
    return out;
  }
}
