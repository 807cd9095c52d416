package io.slotkeeper.events.schedules;

import java.time.Instant;

/**
 * Events of the schedule aggregate, in the past tense. Each says who asked ({@code principal}: a
 * role, or {@code file:<source>} for the jobs file) and may say why ({@code reason}).
 */
public sealed interface ScheduleEvent {

  /** The schedule's name (its business ID). */
  String name();

  /** Who asked for the change. */
  String principal();

  /** Why, if the caller said. */
  String reason();

  /**
   * A schedule came into existence; its slots start at {@code effectiveAt}.
   *
   * @param source the jobs file that declares it, or null when the API created it
   */
  record ScheduleCreated(
      String name,
      ScheduleDefinition definition,
      ManagedBy managedBy,
      String source,
      Instant effectiveAt,
      String principal,
      String reason)
      implements ScheduleEvent {}

  /**
   * Its definition (or owner) changed; catch-up never reaches back before {@code effectiveAt}, so
   * an edit fires the new definition from the edit on.
   */
  record ScheduleChanged(
      String name,
      ScheduleDefinition definition,
      ManagedBy managedBy,
      String source,
      Instant effectiveAt,
      String principal,
      String reason)
      implements ScheduleEvent {}

  /** An operator stopped its slots from firing. */
  record SchedulePaused(String name, String principal, String reason) implements ScheduleEvent {}

  /** An operator let its slots fire again. */
  record ScheduleResumed(String name, String principal, String reason) implements ScheduleEvent {}

  /** It no longer fires and its name may not be used again (slot IDs derive from the name). */
  record ScheduleDeleted(String name, String principal, String reason) implements ScheduleEvent {}
}
