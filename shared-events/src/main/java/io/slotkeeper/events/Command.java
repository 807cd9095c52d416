package io.slotkeeper.events;

/**
 * A command addressed to one aggregate. Its {@link #commandId()} is deterministic (see {@link
 * DeterministicIds}); the write side applies a command ID at most once per aggregate.
 */
public interface Command {

  /** The ID under which this command is applied at most once. */
  String commandId();

  /** The business ID of the aggregate this command is for (an order ID, a SKU, a slot ID). */
  String aggregateId();

  /**
   * The event stream of that aggregate: Axon's aggregate identifier, by which the command is routed
   * and the aggregate loaded (see {@link StreamIds}).
   */
  String streamId();
}
