package io.slotkeeper.domain.command;

/**
 * A creation command under a new command ID names an aggregate that already exists (HTTP 409). The
 * same command ID again is a duplicate, not this.
 */
public class AggregateAlreadyExistsException extends RuntimeException {

  private final String aggregateId;

  public AggregateAlreadyExistsException(String aggregateId) {
    super(aggregateId + " already exists (created by another command)");
    this.aggregateId = aggregateId;
  }

  public String aggregateId() {
    return aggregateId;
  }
}
