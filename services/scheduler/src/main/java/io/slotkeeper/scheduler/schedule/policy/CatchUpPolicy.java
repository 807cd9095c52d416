package io.slotkeeper.scheduler.schedule.policy;

/**
 * What a job does with slots that fell due while nobody ran it (downtime, a long pause). Slots
 * older than the job's catch-up window are always recorded as missed; the policy decides within the
 * window. See {@link CatchUpPlanner}.
 */
public enum CatchUpPolicy {
  /** Fire every slot within the window, oldest first. */
  ALL,
  /** Fire only the newest slot within the window; the others are missed. */
  LATEST,
  /** Fire nothing from the past; only a slot due right now (within the grace) fires. */
  NONE
}
