package io.slotkeeper.scheduler.schedule.policy;

/** What a job does when a slot falls due while an earlier run of the same job is still running. */
public enum OverlapPolicy {
  /** Record the new slot as skipped. */
  SKIP,
  /**
   * Keep the new slot and run it when the current run ends; at most one is kept, a further slot
   * while one is buffered is skipped.
   */
  BUFFER_ONE,
  /** Run it concurrently. */
  ALLOW;

  /** What happens to a due slot. */
  public enum Decision {
    /** Start it now. */
    RUN,
    /** Record it as skipped, never run it. */
    SKIP,
    /** Start it when the run in progress ends. */
    BUFFER
  }

  /**
   * Decides for a due slot, given how many runs of the job are in progress and how many slots are
   * buffered behind them.
   */
  public Decision decide(int running, int buffered) {
    if (running < 0 || buffered < 0) {
      throw new IllegalArgumentException("counts must not be negative");
    }
    if (running == 0 && buffered == 0) {
      return Decision.RUN;
    }
    switch (this) {
      case ALLOW:
        return Decision.RUN;
      case BUFFER_ONE:
        return buffered == 0 ? Decision.BUFFER : Decision.SKIP;
      default:
        return Decision.SKIP;
    }
  }
}
