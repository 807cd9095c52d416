package io.slotkeeper.domain.command;

/**
 * The aggregate's current state forbids the command (HTTP 409, gRPC FAILED_PRECONDITION). The
 * message names the aggregate and its state.
 */
public class IllegalTransitionException extends IllegalStateException {

  private final String aggregateId;
  private final String state;

  public IllegalTransitionException(String aggregateId, String state, String message) {
    super(message);
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
