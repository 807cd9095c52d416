package io.slotkeeper.commands;

/**
 * The command is well formed and the state allows it, but it would break a business limit (a refund
 * above the refundable balance, a reservation above available stock): HTTP 422, gRPC
 * FAILED_PRECONDITION.
 */
public class RuleViolationException extends CommandRefused {

  private final String aggregateId;

  public RuleViolationException(String aggregateId, String message) {
    super(Kind.RULE_VIOLATED, message);
    this.aggregateId = aggregateId;
  }

  public String aggregateId() {
    return aggregateId;
  }
}
