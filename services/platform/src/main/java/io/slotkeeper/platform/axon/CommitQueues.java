package io.slotkeeper.platform.axon;

import java.util.function.Consumer;
import java.util.function.Supplier;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * Work queued on the current (root) unit of work and sent once, when it prepares to commit: an
 * event processor's batch then costs a few round trips instead of one per event, inside the same
 * transaction as its token, and a failure rolls the batch back.
 */
public final class CommitQueues {

  private CommitQueues() {}

  /**
   * The queue stored under {@code key} on the current root unit of work, created by {@code create}
   * the first time, when {@code flush} is registered to run on it at prepare-commit. Requires a
   * started unit of work.
   */
  public static <Q> Q current(String key, Supplier<Q> create, Consumer<Q> flush) {
    UnitOfWork<?> root = CurrentUnitOfWork.get().root();
    return root.getOrComputeResource(
        key,
        k -> {
          Q queue = create.get();
          root.onPrepareCommit(u -> flush.accept(queue));
          return queue;
        });
  }
}
