package io.slotkeeper.timers.jobs;

import io.slotkeeper.domain.command.AggregateNotFoundException;
import io.slotkeeper.domain.command.CommandIdReusedException;
import io.slotkeeper.domain.command.IllegalTransitionException;
import io.slotkeeper.domain.command.InvalidCommandException;
import io.slotkeeper.domain.command.RuleViolationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Waiting for commands from a worker thread, and telling a domain refusal from a failure. */
final class Commands {

  private Commands() {}

  /** The future's value, or its cause thrown as it is (not wrapped in CompletionException). */
  static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /**
   * True when the domain turned the command down (its answer will not change on retry), as opposed
   * to an infrastructure failure, which should fail the attempt so it is retried.
   */
  static boolean isRefusal(RuntimeException e) {
    return e instanceof IllegalTransitionException
        || e instanceof RuleViolationException
        || e instanceof InvalidCommandException
        || e instanceof AggregateNotFoundException
        || e instanceof CommandIdReusedException;
  }
}
