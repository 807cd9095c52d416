package io.slotkeeper.commands;

/** The command names an aggregate that does not exist (HTTP 404, gRPC NOT_FOUND). */
public class AggregateNotFoundException extends CommandRefused {

  private final String aggregateId;

  public AggregateNotFoundException(String aggregateType, String aggregateId) {
    super(Kind.NOT_FOUND, aggregateType + " " + aggregateId + " does not exist");
    this.aggregateId = aggregateId;
  }

  public String aggregateId() {
    return aggregateId;
  }
}
