package io.slotkeeper.schedules;

/** Where a schedule stands. */
public enum ScheduleState {
  /** Its slots fire. */
  ACTIVE,
  /** An operator stopped its slots from firing. */
  PAUSED,
  /** Gone for good; its name is not used again. */
  DELETED
}
