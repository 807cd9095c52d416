package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.callbacks.FutureCallback;
import org.axonframework.messaging.MessageHandler;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;

/**
 * Applies a {@link CommandBatch} inside the transaction of the batch's own unit of work: each entry
 * is dispatched on {@code entryBus}, a synchronous bus with the same aggregate handlers and
 * interceptors (ledger, fencing, correlation) but no transaction of its own, so every entry runs in
 * a nested unit of work whose events join the batch's single append. The ledger rows are written in
 * one statement when the batch commits ({@link CommandLedger}), and each domain interceptor may
 * read ahead for all entries at once ({@link CommandInterceptor#prepareBatch}). An entry that fails
 * fails the batch: it rolls back whole, and the sender applies each entry on its own.
 */
public final class CommandBatchHandler implements MessageHandler<CommandMessage<?>> {

  /** Root unit-of-work resource that marks a batch (the ledger defers its rows then). */
  static final String IN_BATCH = CommandBatchHandler.class.getName() + ".inBatch";

  private final CommandBus entryBus;
  private final List<CommandInterceptor> interceptors;
  private final SameTransactionWrites writes;

  public CommandBatchHandler(
      CommandBus entryBus, List<CommandInterceptor> interceptors, SameTransactionWrites writes) {
    this.entryBus = entryBus;
    this.interceptors = List.copyOf(interceptors);
    this.writes = writes;
  }

  /** The name the batch is dispatched and subscribed under. */
  public static String commandName() {
    return CommandBatch.class.getName();
  }

  /** Whether the calling thread applies a batch entry (then the ledger defers its row). */
  static boolean inBatch() {
    return CurrentUnitOfWork.isStarted()
        && CurrentUnitOfWork.get().root().resources().containsKey(IN_BATCH);
  }

  @Override
  public Object handle(CommandMessage<?> message) throws Exception {
    CommandBatch batch = (CommandBatch) message.getPayload();
    CurrentUnitOfWork.get().root().resources().put(IN_BATCH, Boolean.TRUE);
    List<Command> commands = batch.entries().stream().map(CommandBatch.Entry::command).toList();
    for (CommandInterceptor interceptor : interceptors) {
      interceptor.prepareBatch(commands);
    }
    List<CommandOutcome<?>> outcomes = new ArrayList<>(batch.entries().size());
    for (CommandBatch.Entry entry : batch.entries()) {
      // A first attempt: the ledger is written, not read (see the dedup interceptor).
      CommandMessage<?> command =
          writes.register(
              CommandService.message(entry.command(), Map.of(), 1, entry.creating()),
              entry.write());
      FutureCallback<Object, Object> done = new FutureCallback<>();
      CommandResultMessage<?> result;
      try {
        entryBus.dispatch(command, done);
        result = done.getResult();
      } finally {
        writes.remove(command);
      }
      if (result.isExceptional()) {
        throw new BatchEntryFailedException(entry.command(), result.exceptionResult());
      }
      outcomes.add((CommandOutcome<?>) result.getPayload());
    }
    return new CommandBatch.Outcomes(outcomes);
  }

  /** An entry failed; the batch rolls back and its entries are sent one by one. */
  static final class BatchEntryFailedException extends RuntimeException {
    private final transient Command command;

    BatchEntryFailedException(Command command, Throwable cause) {
      super("batch entry " + command.commandId() + " failed: " + cause, cause, false, false);
      this.command = command;
    }

    Command command() {
      return command;
    }
  }
}
