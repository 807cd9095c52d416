package io.slotkeeper.receiver;

/** What {@link DeliveryLedger#handle} did with a delivery, and the answer slotkeeper gets. */
public record Outcome(Kind kind, int status, String body) {

  /** How the delivery ended. */
  public enum Kind {
    /** The effect ran and committed with the key's record (its answer: the team's, 2xx or 4xx). */
    APPLIED,
    /** The key was recorded before: the recorded answer, no second effect. */
    REPLAYED,
    /** The fencing token is lower than the highest seen for the schedule: 409, nothing changed. */
    STALE_TOKEN,
    /** The key was recorded for another schedule or slot: 422, nothing changed. */
    KEY_REUSED,
    /** The effect answered 408, 429 or 5xx: rolled back and not recorded; a retry runs it again. */
    NOT_RECORDED
  }

  /** Whether {@link #body} is a problem document ({@code application/problem+json}). */
  public boolean problem() {
    return kind == Kind.STALE_TOKEN || kind == Kind.KEY_REUSED;
  }

  static Outcome of(Kind kind, Problem problem) {
    return new Outcome(kind, problem.status(), problem.json());
  }
}
