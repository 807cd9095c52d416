package io.slotkeeper.commands;

/**
 * A creation command under a new command ID names an aggregate that already exists (HTTP 409). The
 * same command ID again is a duplicate, not this.
 */
public class AggregateAlreadyExistsException extends CommandRefused {

  private final String aggregateId;

  public AggregateAlreadyExistsException(String aggregateId) {
    super(Kind.CONFLICT, aggregateId + " already exists (created by another command)");
    this.aggregateId = aggregateId;
  }

  public String aggregateId() {
    return aggregateId;
  }
}
