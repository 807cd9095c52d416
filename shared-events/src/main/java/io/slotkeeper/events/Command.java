package io.slotkeeper.events;

/**
 * A command addressed to one aggregate. Its {@link #commandId()} is deterministic (see {@link
 * DeterministicIds}); the write side applies a command ID at most once per aggregate.
 */
public interface Command {

  /** The ID under which this command is applied at most once. */
  String commandId();

  /** The aggregate this command is for. */
  String aggregateId();
}
