package io.slotkeeper.operations.support;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.SameTransactionWrite;
import io.slotkeeper.events.Command;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Hands commands from the event loop to the write side (which runs on Axon's own executor) and
 * brings the outcome back to the caller's context, with a deadline. Concurrent requests' commands
 * share transactions when they queue up ({@link CommandBatcher}): one WAL flush for many.
 */
public final class CommandBridge {

  private final Vertx vertx;
  private final CommandBatcher commands;
  private final Duration timeout;

  public CommandBridge(Vertx vertx, CommandBatcher commands, Duration timeout) {
    this.vertx = vertx;
    this.commands = commands;
    this.timeout = timeout;
  }

  public <R> Future<CommandOutcome<R>> send(Command command) {
    return send(command, null);
  }

  /** Sends the command with work for its transaction (see {@link SameTransactionWrite}). */
  public <R> Future<CommandOutcome<R>> send(Command command, SameTransactionWrite write) {
    Context context = vertx.getOrCreateContext();
    Promise<CommandOutcome<R>> promise = Promise.promise();
    long timer =
        vertx.setTimer(
            timeout.toMillis(),
            id ->
                promise.tryFail(
                    new TimeoutException("command " + command.commandId() + " timed out")));
    commands
        .<R>send(command, write)
        .whenComplete(
            (outcome, error) ->
                context.runOnContext(
                    v -> {
                      vertx.cancelTimer(timer);
                      if (error != null) {
                        promise.tryFail(error);
                      } else {
                        promise.tryComplete(outcome);
                      }
                    }));
    return promise.future();
  }
}
