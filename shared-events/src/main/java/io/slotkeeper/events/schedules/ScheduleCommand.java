package io.slotkeeper.events.schedules;

import io.slotkeeper.events.Command;
import io.slotkeeper.events.StreamIds;

/**
 * Commands to the schedule aggregate of one name. {@code expectedVersion} (nullable) is the
 * caller's {@code If-Match}: the command is refused when the schedule has moved on.
 */
public sealed interface ScheduleCommand extends Command {

  /** The schedule's name. */
  String name();

  /** Who asks (a role, or {@code file:<source>}). */
  String principal();

  /** Why, optional. */
  String reason();

  @Override
  default String aggregateId() {
    return name();
  }

  @Override
  default String streamId() {
    return StreamIds.schedule(name());
  }

  /** Create a schedule of a name never used before. */
  record CreateSchedule(
      String commandId,
      String name,
      ScheduleDefinition definition,
      ManagedBy managedBy,
      String source,
      String principal,
      String reason)
      implements ScheduleCommand {}

  /**
   * Make the schedule what a jobs file declares: create it (paused when {@code paused}: an
   * operator's earlier pause of the job is kept), change it to match, or nothing when it matches. A
   * deleted schedule stays deleted.
   */
  record DeclareSchedule(
      String commandId,
      String name,
      ScheduleDefinition definition,
      String source,
      boolean paused,
      String principal,
      String reason)
      implements ScheduleCommand {}

  /**
   * Hand a schedule that the jobs file {@code source} no longer declares over to the API (it stays
   * as it is); a no-op when another source or the API owns it.
   */
  record ReleaseSchedule(
      String commandId, String name, String source, String principal, String reason)
      implements ScheduleCommand {}

  /**
   * Replace the definition; a no-op when it and the owner are unchanged. The API ({@code managedBy
   * = API}) may not change a file-managed schedule.
   */
  record ChangeSchedule(
      String commandId,
      String name,
      ScheduleDefinition definition,
      ManagedBy managedBy,
      String source,
      Long expectedVersion,
      String principal,
      String reason)
      implements ScheduleCommand {}

  /** Stop firing; a no-op when paused. */
  record PauseSchedule(
      String commandId, String name, Long expectedVersion, String principal, String reason)
      implements ScheduleCommand {}

  /** Fire again; a no-op when active. */
  record ResumeSchedule(
      String commandId, String name, Long expectedVersion, String principal, String reason)
      implements ScheduleCommand {}

  /** Delete for good (the API may not delete a file-managed schedule). */
  record DeleteSchedule(
      String commandId,
      String name,
      Long expectedVersion,
      ManagedBy managedBy,
      String principal,
      String reason)
      implements ScheduleCommand {}
}
