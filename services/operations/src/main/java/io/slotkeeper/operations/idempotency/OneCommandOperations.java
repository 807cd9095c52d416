package io.slotkeeper.operations.idempotency;

import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.SameTransactionWrite;
import io.slotkeeper.events.Command;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.idempotency.KeyTakenException;
import io.slotkeeper.idempotency.RequestFingerprint;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.operations.idempotency.KeyedAnswers.Answer;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.CommandBridge;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operations that are exactly one command: the Idempotency-Key is only looked up, and a free key's
 * row is written, completed, in the command's own transaction: no claim before the command, no
 * round trip after it, and the answer is as durable as the command. A request that comes while the
 * first one runs runs the same command ID, which the ledger answers "duplicate": it replays the
 * first answer. See {@link KeyedAnswers} for the rules both protocols share.
 */
public final class OneCommandOperations {

  private static final Logger log = LoggerFactory.getLogger(OneCommandOperations.class);

  private final IdempotencyStore store;
  private final CommandBridge commands;
  private final KeyedAnswers answers;

  public OneCommandOperations(
      IdempotencyStore store, CommandBridge commands, KeyedAnswers answers) {
    this.store = store;
    this.commands = commands;
    this.answers = answers;
  }

  /**
   * Runs {@code command} at most once per key. {@code request} is the validated request that
   * identifies it for the fingerprint; {@code instance} is the resource path named in saved
   * problems; {@code respond} (a pure function of the outcome: it runs on the command thread)
   * builds the answer inside the command's transaction, which saves it when the command applies.
   */
  public <R> Future<Outcome> command(
      String operation,
      IdempotencyKey key,
      JsonObject request,
      String instance,
      Command command,
      Function<CommandOutcome<R>, ApiResponse> respond) {
    String fingerprint = RequestFingerprint.of(operation, request);
    Request held = new Request(operation, key, fingerprint);
    return answers.admitted(
        key,
        operation,
        fingerprint,
        () -> store.lookup(key, operation, fingerprint),
        () -> {
          SavedWithCommand<R> saved = new SavedWithCommand<>(held, respond);
          Future<Answer> sent =
              commands
                  .<R>send(command, saved)
                  .map(
                      outcome ->
                          outcome.duplicate()
                              // Applied earlier: nothing was written with it this time.
                              ? new Answer(KeyedAnswers.stored(respond.apply(outcome)), false)
                              : new Answer(saved.response, true));
          return answer(held, instance, sent);
        });
  }

  /** A looked-up key: who asks, under which key, for what. */
  private record Request(String operation, IdempotencyKey key, String fingerprint) {}

  /** Saves the response in the transaction of the command it answers. */
  private final class SavedWithCommand<R> implements SameTransactionWrite {
    private final Request request;
    private final Function<CommandOutcome<R>, ApiResponse> respond;
    // Set on the command thread before the outcome is handed back (a later attempt overwrites it).
    private volatile StoredResponse response;

    SavedWithCommand(Request request, Function<CommandOutcome<R>, ApiResponse> respond) {
      this.request = request;
      this.respond = respond;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void applied(CommandOutcome<?> outcome) {
      StoredResponse r = KeyedAnswers.stored(respond.apply((CommandOutcome<R>) outcome));
      store.completeWithCommand(request.key(), request.operation(), request.fingerprint(), r);
      response = r;
    }
  }

  /**
   * The answer of a looked-up key's command: a response saved with its command is final; any other
   * (a duplicate's, a 4xx problem but 404) is saved now; a 5xx is answered unsaved (the key has no
   * row of this request's to release). When another request took the key meanwhile (the command
   * rolled back, or the save found the key held), its holder answers.
   */
  private Future<Outcome> answer(Request request, String instance, Future<Answer> result) {
    return result
        .recover(
            failure ->
                keyTaken(failure)
                    ? logTaken(request)
                    : KeyedAnswers.problemAnswer(failure, instance, Future::failedFuture))
        .compose(
            a -> {
              if (a != null && (a.saved() || a.changedNothing())) {
                return Future.succeededFuture(new Outcome(a.response(), false));
              }
              Future<Boolean> saved =
                  a == null
                      ? Future.succeededFuture(false)
                      : store.save(
                          request.key(), request.operation(), request.fingerprint(), a.response());
              return saved.compose(
                  ok ->
                      ok
                          ? Future.succeededFuture(new Outcome(a.response(), false))
                          : answers.decided(
                              request.operation(),
                              store.lookup(
                                  request.key(), request.operation(), request.fingerprint()),
                              // Free again already: the holder's request failed; the client
                              // retries.
                              () -> Future.failedFuture(KeyedAnswers.inFlight()),
                              false));
            })
        .onFailure(e -> log.warn("request with Idempotency-Key failed: {}", e.getMessage()));
  }

  private static Future<Answer> logTaken(Request request) {
    log.info(
        "{} rolled back: its Idempotency-Key was taken by another request meanwhile",
        request.operation());
    return Future.succeededFuture(null);
  }

  private static boolean keyTaken(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof KeyTakenException) {
        return true;
      }
    }
    return false;
  }
}
