package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends commands of many aggregates in shared transactions: the path of the API's commands and the
 * timers' slot commands, where concurrent requests, 200 jobs due at the same second or the 10,000
 * slots of a catch-up would otherwise each pay a commit (PostgreSQL's WAL flush was about half of a
 * command's time).
 *
 * <p>Natural batching: a command is sent at once while fewer than {@code maxInFlight} batches are
 * on their way, so a lone command waits for nothing; otherwise it queues, and the next batch takes
 * up to {@code maxBatch} queued commands. No two commands of one aggregate share a batch or run in
 * two batches at once (the later one waits), so their order is kept and batches never deadlock on
 * each other's aggregates.
 *
 * <p>A batch is all or nothing, and it decides nothing: when it fails, its commands are sent again
 * (see {@link #fallBack}), the refused or conflicting ones alone through {@link CommandService},
 * which gives each the answer it would have had without batching.
 */
public final class CommandBatcher {

  private static final Logger log = LoggerFactory.getLogger(CommandBatcher.class);

  private final CommandBus commandBus;
  private final CommandService commands;
  private final int maxInFlight;
  private final int maxBatch;
  private final Deque<Pending> queue = new ArrayDeque<>();
  // Aggregates of the batches on their way (guarded by this).
  private final Set<String> busyAggregates = new HashSet<>();
  private int inFlight;

  public CommandBatcher(
      CommandBus commandBus, CommandService commands, int maxInFlight, int maxBatch) {
    if (maxInFlight < 1 || maxBatch < 1) {
      throw new IllegalArgumentException("maxInFlight and maxBatch must be at least 1");
    }
    this.commandBus = commandBus;
    this.commands = commands;
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
  }

  /** Sends the command in a batch; the outcome is the one {@link CommandService#send} gives. */
  public <R> CompletableFuture<CommandOutcome<R>> send(Command command) {
    return submit(command, false, null);
  }

  /**
   * Sends the command in a batch; {@code write} runs in whichever transaction applies it, the
   * batch's or its own (see {@link SameTransactionWrite}).
   */
  public <R> CompletableFuture<CommandOutcome<R>> send(
      Command command, SameTransactionWrite write) {
    return submit(command, false, write);
  }

  /** Sends a command that almost always creates its aggregate (see {@link CommandService}). */
  public <R> CompletableFuture<CommandOutcome<R>> sendCreating(Command command) {
    return submit(command, true, null);
  }

  @SuppressWarnings("unchecked")
  private <R> CompletableFuture<CommandOutcome<R>> submit(
      Command command, boolean creating, SameTransactionWrite write) {
    Pending pending =
        new Pending(new CommandBatch.Entry(command, creating, write), System.nanoTime());
    List<Pending> batch;
    synchronized (this) {
      queue.add(pending);
      batch = nextBatch();
    }
    if (batch != null) {
      dispatch(batch);
    }
    return (CompletableFuture<CommandOutcome<R>>) (CompletableFuture<?>) pending.result;
  }

  /** The next batch to send, or null when none may go now; call holding the lock. */
  private List<Pending> nextBatch() {
    if (inFlight >= maxInFlight || queue.isEmpty()) {
      return null;
    }
    List<Pending> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
    Set<String> seen = new HashSet<>();
    for (Iterator<Pending> it = queue.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
      Pending next = it.next();
      String aggregate = next.entry.command().streamId();
      // An aggregate's later commands wait while an earlier one is queued or in a batch on its
      // way: their order is kept, and two batches never wait for each other's aggregate locks.
      if (seen.add(aggregate) && !busyAggregates.contains(aggregate)) {
        batch.add(next);
        it.remove();
      }
    }
    if (batch.isEmpty()) {
      return null;
    }
    batch.forEach(p -> busyAggregates.add(p.entry.command().streamId()));
    inFlight++;
    return batch;
  }

  private void dispatch(List<Pending> batch) {
    CommandMessage<CommandBatch> message =
        new GenericCommandMessage<>(
            GenericCommandMessage.<CommandBatch>asCommandMessage(
                new CommandBatch(batch.stream().map(p -> p.entry).toList())),
            CommandBatchHandler.commandName());
    try {
      commandBus.dispatch(message, (msg, response) -> done(batch, response));
    } catch (RuntimeException refused) {
      // The bus did not take the batch (it is shutting down): nothing ran, nothing will answer.
      batch.forEach(p -> p.result.completeExceptionally(refused));
      free(batch, true);
    }
  }

  private void done(List<Pending> batch, CommandResultMessage<?> response) {
    if (response.isExceptional()) {
      fallBack(batch, response.exceptionResult());
      return;
    }
    List<CommandOutcome<?>> outcomes = ((CommandBatch.Outcomes) response.getPayload()).outcomes();
    for (int i = 0; i < batch.size(); i++) {
      Pending p = batch.get(i);
      commands.record(p.entry.command(), outcomes.get(i), null, p.started);
      p.result.complete(outcomes.get(i));
    }
    free(batch, true);
  }

  /**
   * Frees the aggregates of {@code done} (a command sent alone frees its own when answered) and,
   * when {@code batchOver}, the batch's place among those on their way; then the next batch may go.
   */
  private void free(List<Pending> done, boolean batchOver) {
    List<Pending> next;
    synchronized (this) {
      done.forEach(p -> busyAggregates.remove(p.entry.command().streamId()));
      if (batchOver) {
        inFlight--;
      }
      next = nextBatch();
    }
    if (next != null) {
      dispatch(next);
    }
  }

  /**
   * Nothing of the batch was applied. When one entry is known to have failed (a refusal by its
   * aggregate, a stale fence), it goes alone and the others queue again at the front, so one
   * refused command costs its batch one more transaction, not one each; when the commit itself
   * failed (a command applied meanwhile, a slot created meanwhile, the database), each command goes
   * alone, with its own retries. A command sent alone keeps its aggregate busy until it is
   * answered, so the aggregate's later commands still come after it.
   */
  private void fallBack(List<Pending> batch, Throwable cause) {
    Command failed = failedEntry(cause);
    log.debug(
        "batch of {} commands rolled back ({}): {}",
        batch.size(),
        failed == null ? "sending each alone" : "sending " + failed.commandId() + " alone",
        CommandService.unwrap(cause).toString());
    List<Pending> alone = new ArrayList<>();
    List<Pending> requeue = new ArrayList<>();
    for (Pending p : batch) {
      (failed == null || p.entry.command() == failed ? alone : requeue).add(p);
    }
    synchronized (this) {
      for (int i = requeue.size() - 1; i >= 0; i--) {
        queue.addFirst(requeue.get(i));
      }
    }
    free(requeue, true);
    alone.forEach(this::sendAlone);
  }

  private static Command failedEntry(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof CommandBatchHandler.BatchEntryFailedException) {
        return ((CommandBatchHandler.BatchEntryFailedException) t).command();
      }
    }
    return null;
  }

  private void sendAlone(Pending p) {
    Command command = p.entry.command();
    CompletableFuture<CommandOutcome<Object>> single =
        commands.send(command, p.entry.creating(), p.entry.write());
    single.whenComplete(
        (outcome, error) -> {
          free(List.of(p), false);
          if (error != null) {
            p.result.completeExceptionally(CommandService.unwrap(error));
          } else {
            p.result.complete(outcome);
          }
        });
  }

  private static final class Pending {
    final CommandBatch.Entry entry;
    final long started;
    final CompletableFuture<CommandOutcome<?>> result = new CompletableFuture<>();

    Pending(CommandBatch.Entry entry, long started) {
      this.entry = entry;
      this.started = started;
    }
  }
}
