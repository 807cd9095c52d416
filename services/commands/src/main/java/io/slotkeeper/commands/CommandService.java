package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.modelling.command.AggregateStreamCreationException;
import org.axonframework.modelling.command.ConcurrencyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way commands enter the write side. It sends a command on Axon's asynchronous bus and,
 * when the store reports a conflict (another writer got the aggregate version or the command ID
 * first), sends it again: the retry either applies on the new state or finds the command ID in the
 * ledger and answers "duplicate" with the original outcome.
 */
public final class CommandService {

  private static final Logger log = LoggerFactory.getLogger(CommandService.class);
  static final int MAX_ATTEMPTS = 8;

  /** Metadata key of the attempt number (1 = first); only retries consult the ledger first. */
  static final String ATTEMPT = "attempt";

  private final CommandBus commandBus;
  private final SlotkeeperMetrics metrics;
  private final SameTransactionWrites writes;

  public CommandService(
      CommandBus commandBus, SlotkeeperMetrics metrics, SameTransactionWrites writes) {
    this.commandBus = commandBus;
    this.metrics = metrics;
    this.writes = writes;
  }

  /** Sends the command; completes with its outcome or with a domain exception. */
  public <R> CompletableFuture<CommandOutcome<R>> send(Command command) {
    return send(command, Map.of());
  }

  /**
   * Sends the command with extra metadata that its events carry (correlation data, e.g. the {@code
   * slot} a scheduled job's command comes from).
   */
  public <R> CompletableFuture<CommandOutcome<R>> send(
      Command command, Map<String, String> metadata) {
    return send(command, metadata, false, null);
  }

  /**
   * Sends the command; {@code write} runs in the transaction that applies it (see {@link
   * SameTransactionWrite}), so an outcome that is not a duplicate means it committed with it.
   */
  public <R> CompletableFuture<CommandOutcome<R>> send(
      Command command, SameTransactionWrite write) {
    return send(command, Map.of(), false, write);
  }

  /**
   * The name under which a command is sent by {@link #sendCreating}: its aggregate's handler for
   * that name creates the aggregate without reading its stream.
   */
  public static String creatingName(Class<? extends Command> type) {
    return type.getName() + "#creating";
  }

  /**
   * Sends a command that almost always creates its aggregate (a slot's first fire): the first
   * attempt goes to the handler named {@link #creatingName}, which creates the aggregate without
   * reading its (empty) stream, one round trip less. If the aggregate exists after all, that
   * attempt fails on the event sequence, rolls back, and the retry is the command itself, which
   * loads the aggregate and decides on its state.
   */
  public <R> CompletableFuture<CommandOutcome<R>> sendCreating(Command command) {
    return send(command, Map.of(), true, null);
  }

  /** {@link #send} or {@link #sendCreating}, with the sender's write (may be null). */
  <R> CompletableFuture<CommandOutcome<R>> send(
      Command command, boolean creating, SameTransactionWrite write) {
    return send(command, Map.of(), creating, write);
  }

  private <R> CompletableFuture<CommandOutcome<R>> send(
      Command command, Map<String, String> metadata, boolean creating, SameTransactionWrite write) {
    long started = System.nanoTime();
    CompletableFuture<CommandOutcome<R>> result = attempt(command, metadata, 1, creating, write);
    result.whenComplete((outcome, error) -> record(command, outcome, error, started));
    return result;
  }

  /** Counts a command's outcome and its time since {@code started} (nanoTime). */
  void record(Command command, CommandOutcome<?> outcome, Throwable error, long started) {
    metrics.command(
        command.getClass().getSimpleName(), outcomeOf(outcome, error), System.nanoTime() - started);
  }

  /** Applied, duplicate, rejected (a {@link CommandRefused}) or failed (anything else). */
  static SlotkeeperMetrics.CommandOutcome outcomeOf(CommandOutcome<?> outcome, Throwable error) {
    if (error == null) {
      return outcome != null && outcome.duplicate()
          ? SlotkeeperMetrics.CommandOutcome.DUPLICATE
          : SlotkeeperMetrics.CommandOutcome.APPLIED;
    }
    return unwrap(error) instanceof CommandRefused
        ? SlotkeeperMetrics.CommandOutcome.REJECTED
        : SlotkeeperMetrics.CommandOutcome.FAILED;
  }

  /**
   * The message of attempt {@code attempt} of a command: its metadata, its ID and the attempt
   * number (the ledger interceptor reads both); a creation goes under {@link #creatingName}.
   */
  static CommandMessage<Command> message(
      Command command, Map<String, ?> metadata, int attempt, boolean creating) {
    CommandMessage<Command> message =
        GenericCommandMessage.<Command>asCommandMessage(command)
            .andMetaData(metadata)
            .andMetaData(Map.of("commandId", command.commandId(), ATTEMPT, attempt));
    return creating
        ? new GenericCommandMessage<>(message, creatingName(command.getClass()))
        : message;
  }

  /** Attempt {@code attempt}, as a creation when {@code creating}. */
  private <R> CompletableFuture<CommandOutcome<R>> attempt(
      Command command,
      Map<String, String> metadata,
      int attempt,
      boolean creating,
      SameTransactionWrite write) {
    CompletableFuture<CommandOutcome<R>> result = new CompletableFuture<>();
    CommandMessage<Command> message =
        writes.register(message(command, metadata, attempt, creating), write);
    commandBus.dispatch(
        message,
        (msg, response) -> {
          writes.remove(message);
          if (!response.isExceptional()) {
            @SuppressWarnings("unchecked")
            CommandOutcome<R> outcome = (CommandOutcome<R>) response.getPayload();
            result.complete(outcome);
            return;
          }
          Throwable error = unwrap(response.exceptionResult());
          if (error instanceof AggregateStreamCreationException && attempt > 1) {
            // Retried once and the ledger did not know the ID: another command created it.
            result.completeExceptionally(
                new AggregateAlreadyExistsException(command.aggregateId()));
          } else if (isConflict(error) && attempt < MAX_ATTEMPTS) {
            log.debug(
                "conflict on {} (attempt {}): {}", command.commandId(), attempt, error.toString());
            CompletableFuture.delayedExecutor(backoffMillis(attempt), TimeUnit.MILLISECONDS)
                // A retry is always the command under its own name (see sendCreating).
                .execute(
                    () -> relay(attempt(command, metadata, attempt + 1, false, write), result));
          } else if (error
              instanceof org.axonframework.modelling.command.AggregateNotFoundException) {
            result.completeExceptionally(
                new AggregateNotFoundException(
                    command.getClass().getSimpleName() + " target", command.aggregateId()));
          } else {
            result.completeExceptionally(error);
          }
        });
    return result;
  }

  private static boolean isConflict(Throwable error) {
    return error instanceof ConcurrencyException
        || error instanceof AggregateStreamCreationException
        || error instanceof ConcurrentDuplicateException;
  }

  private static long backoffMillis(int attempt) {
    long cap = Math.min(200, 5L << attempt);
    return ThreadLocalRandom.current().nextLong(1, cap + 1);
  }

  private static <T> void relay(CompletableFuture<T> from, CompletableFuture<T> to) {
    from.whenComplete(
        (v, e) -> {
          if (e != null) {
            to.completeExceptionally(unwrap(e));
          } else {
            to.complete(v);
          }
        });
  }

  static Throwable unwrap(Throwable t) {
    Throwable current = t;
    while ((current instanceof CompletionException
            || current instanceof org.axonframework.commandhandling.CommandExecutionException
                && current.getCause() != null)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }
}
