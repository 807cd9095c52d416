package io.slotkeeper.schedules;

import io.slotkeeper.commands.DomainModule;
import java.util.List;

/**
 * The schedules' part of the write side: the {@link Schedule} aggregate and its projection into
 * {@code schedules} (and the timers' {@code job_controls} and {@code job_first_planned}).
 */
public final class Schedules {

  private Schedules() {}

  /** Schedules as a domain of the write model. */
  public static DomainModule module() {
    return new DomainModule(
        List.of(Schedule.class),
        sql -> List.of(new ScheduleProjection(sql)),
        connections -> List.of());
  }
}
