package io.slotkeeper.business.jobs;

import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.CommandRefused;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.events.Command;
import io.slotkeeper.slots.SlotRun;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Waiting for commands from a worker thread, and telling a domain refusal from a failure. */
final class Commands {

  private static final Logger log = LoggerFactory.getLogger(Commands.class);

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
   * Sends a command of the slot and waits for it. A refusal ({@link CommandRefused}: its answer
   * will not change on retry) is logged and answered with empty, so the slot goes on with its other
   * targets; any other failure is thrown and fails the attempt, which is retried under the same
   * command IDs.
   */
  static <R> Optional<CommandOutcome<R>> sendUnlessRefused(
      CommandService commands, Command command, SlotRun run) {
    return join(sendUnlessRefusedAsync(commands, command, run));
  }

  /**
   * {@link #sendUnlessRefused} without waiting: completes with empty on a domain refusal and fails
   * with any other failure (its cause as it is).
   */
  static <R> CompletableFuture<Optional<CommandOutcome<R>>> sendUnlessRefusedAsync(
      CommandService commands, Command command, SlotRun run) {
    // The slot travels with the command into its events' metadata (e.g. inventory_log.slot).
    CompletableFuture<CommandOutcome<R>> sent;
    try {
      sent = commands.<R>send(command, Map.of("slot", run.slotId()));
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handle(
        (outcome, failure) -> {
          if (failure == null) {
            return Optional.of(outcome);
          }
          Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
          if (!(cause instanceof CommandRefused e)) {
            throw failure instanceof CompletionException c ? c : new CompletionException(cause);
          }
          log.warn(
              "job {} slot {}: {} for {} refused: {}",
              run.job(),
              run.slotId(),
              command.getClass().getSimpleName(),
              command.aggregateId(),
              e.toString());
          return Optional.empty();
        });
  }
}
