package io.slotkeeper.commands;

/**
 * The aggregate's current state forbids the command (HTTP 409, gRPC FAILED_PRECONDITION). The
 * message names the aggregate and its state.
 */
public class IllegalTransitionException extends CommandRefused {

  private final String aggregateId;
  private final String state;

  public IllegalTransitionException(String aggregateId, String state, String message) {
    super(Kind.WRONG_STATE, message);
    this.aggregateId = aggregateId;
    this.state = state;
  }

  public String aggregateId() {
    return aggregateId;
  }

  public String state() {
    return state;
  }
}
