package io.slotkeeper.api.http.support;

import io.slotkeeper.api.http.problem.ApiProblem;
import io.slotkeeper.api.http.problem.Problems;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.SameTransactionWrite;
import io.slotkeeper.events.Command;
import io.slotkeeper.idempotency.Claim;
import io.slotkeeper.idempotency.IdempotencyKeys;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.idempotency.KeyTakenException;
import io.slotkeeper.idempotency.RequestFingerprint;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotency-Key semantics for every mutating operation, whatever the protocol (the IETF draft and
 * Stripe's behaviour): missing or malformed key 400; same key and same request replays the saved
 * response; same key with another request 422. Requests that fail validation are not saved (nothing
 * began); once execution began, its answer is saved, errors included, except 5xx.
 *
 * <p>An operation that is one command ({@link #command}) only looks its key up and writes the key's
 * row, completed, in the command's own transaction: no claim before the command, no round trip
 * after it, and the answer is as durable as the command. A request that comes while the first one
 * runs runs the same command ID, which the ledger answers "duplicate": it waits for and replays the
 * first answer. Any other operation ({@link #run}) claims its key first: 409 ({@link #IN_FLIGHT})
 * while its first request runs; a 5xx releases the key so a retry can run.
 *
 * <p>Protocol-free: the answer is the saved HTTP-shaped response (status, headers, JSON body),
 * written by {@link HttpAnswers} for HTTP and mapped to a message or a status by the gRPC API. HTTP
 * and gRPC build the same operation name and request JSON, so a key used over one protocol replays
 * over the other.
 */
public final class IdempotentCommands {

  private static final Logger log = LoggerFactory.getLogger(IdempotentCommands.class);
  public static final String HEADER = "Idempotency-Key";

  /** The title of the 409 answered while the key's first request still runs. */
  public static final String IN_FLIGHT = "Request in flight";

  /** The saved response of the key's request, and whether this answer is a replay of it. */
  public record Outcome(StoredResponse response, boolean replayed) {

    /** The saved JSON body. */
    public JsonObject body() {
      return new JsonObject(response.body());
    }
  }

  private final IdempotencyStore store;
  private final CommandBridge commands;
  private final SlotkeeperMetrics metrics;

  public IdempotentCommands(
      IdempotencyStore store, CommandBridge commands, SlotkeeperMetrics metrics) {
    this.store = store;
    this.commands = commands;
    this.metrics = metrics;
  }

  /** The key, validated (throws a 400 problem). */
  public static String requireKey(String key) {
    String problem = IdempotencyKeys.problemWith(key);
    if (problem != null) {
      throw ApiProblem.badRequest(problem);
    }
    return key;
  }

  /**
   * Runs {@code execute} at most once per key. {@code request} is the validated request (path
   * parameters and body) that identifies it for the fingerprint; {@code instance} is the resource
   * path named in saved problems. Fails (with an {@link ApiProblem} or a failure {@link
   * Problems#from} maps) when nothing is saved: in flight, mismatch, storage down, 5xx.
   */
  public Future<Outcome> run(
      String operation,
      String key,
      JsonObject request,
      String instance,
      Function<String, Future<ApiResponse>> execute) {
    return claimed(operation, key, request, () -> executeAndSave(key, instance, execute));
  }

  /**
   * Runs an operation that is exactly one command, at most once per key: like {@link #run}, but
   * {@code respond} (a pure function of the outcome: it runs on the command thread) builds the
   * answer inside the command's transaction, which saves it when the command applies.
   */
  public <R> Future<Outcome> command(
      String operation,
      String key,
      JsonObject request,
      String instance,
      Command command,
      Function<CommandOutcome<R>, ApiResponse> respond) {
    String fingerprint = RequestFingerprint.of(operation, request);
    Request held = new Request(operation, key, fingerprint);
    return decided(
        operation,
        store.lookup(key, operation, fingerprint),
        () -> {
          SavedWithCommand<R> saved = new SavedWithCommand<>(held, respond);
          Future<Answer> sent =
              commands
                  .<R>send(command, saved)
                  .map(
                      outcome ->
                          outcome.duplicate()
                              // Applied earlier: nothing was written with it this time.
                              ? new Answer(stored(respond.apply(outcome)), false)
                              : new Answer(saved.response, true));
          return answerCommand(held, instance, sent);
        });
  }

  /** A looked-up key: who asks, under which key, for what. */
  private record Request(String operation, String key, String fingerprint) {}

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
      StoredResponse r = stored(respond.apply((CommandOutcome<R>) outcome));
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
  private Future<Outcome> answerCommand(Request request, String instance, Future<Answer> result) {
    return result
        .recover(
            failure ->
                keyTaken(failure)
                    ? logTaken(request)
                    : problemAnswer(failure, instance, Future::failedFuture))
        .compose(
            a -> {
              if (a != null && (a.saved() || changedNothing(a))) {
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
                          : decided(
                              request.operation(),
                              store.lookup(
                                  request.key(), request.operation(), request.fingerprint()),
                              // Free again already: the holder's request failed; the client
                              // retries.
                              () -> Future.failedFuture(inFlight()),
                              false));
            })
        .onFailure(e -> log.warn("request with Idempotency-Key failed: {}", e.getMessage()));
  }

  /** Claims the key; runs {@code execute} when this request got it, else answers from the key. */
  private Future<Outcome> claimed(
      String operation, String key, JsonObject request, Supplier<Future<Outcome>> execute) {
    return decided(
        operation, store.claim(key, operation, RequestFingerprint.of(operation, request)), execute);
  }

  /**
   * Runs {@code execute} when the key is this request's (claimed, or free after a lookup); else
   * answers from its holder: a replay, 409 while it runs, 422 for another request.
   */
  private Future<Outcome> decided(
      String operation, Future<Claim> claim, Supplier<Future<Outcome>> execute) {
    return decided(operation, claim, execute, true);
  }

  /** {@link #decided}; {@code tally} false for a request already counted (asking its key again). */
  private Future<Outcome> decided(
      String operation, Future<Claim> claim, Supplier<Future<Outcome>> execute, boolean tally) {
    return claim.compose(
        c -> {
          if (c instanceof Claim.Replay) {
            count(operation, "replayed", tally);
            return Future.succeededFuture(new Outcome(((Claim.Replay) c).response(), true));
          } else if (c instanceof Claim.InFlight) {
            count(operation, "conflict", tally);
            return Future.failedFuture(inFlight());
          } else if (c instanceof Claim.Mismatch) {
            count(operation, "mismatch", tally);
            return Future.failedFuture(
                new ApiProblem(
                    422,
                    "Idempotency-Key reused",
                    "this Idempotency-Key was used for a different request ("
                        + ((Claim.Mismatch) c).firstOperation()
                        + " or another body)"));
          }
          count(operation, "new", tally);
          return execute.get();
        });
  }

  private static ApiProblem inFlight() {
    return new ApiProblem(
        409,
        IN_FLIGHT,
        "the first request with this Idempotency-Key is still being processed; retry later");
  }

  private Future<Outcome> executeAndSave(
      String key, String instance, Function<String, Future<ApiResponse>> execute) {
    Future<ApiResponse> result;
    try {
      result = execute.apply(key);
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    return answer(key, instance, result.map(r -> new Answer(stored(r), false)));
  }

  /** A response, and whether it was saved with its command already. */
  private record Answer(StoredResponse response, boolean saved) {}

  /**
   * The answer of an execution that began: a response saved with its command is final; any other
   * response, a 4xx problem included, is saved now; a 404 or a 5xx releases the key.
   */
  private Future<Outcome> answer(String key, String instance, Future<Answer> result) {
    return result
        .recover(
            failure ->
                problemAnswer(
                    failure,
                    instance,
                    p -> store.release(key).transform(ignored -> Future.failedFuture(p))))
        .compose(
            a -> {
              Outcome outcome = new Outcome(a.response(), false);
              if (a.saved()) {
                return Future.succeededFuture(outcome);
              }
              return changedNothing(a)
                  ? store.release(key).map(outcome)
                  : store.complete(key, a.response()).map(outcome);
            })
        .onFailure(e -> log.warn("request with Idempotency-Key failed: {}", e.getMessage()));
  }

  /**
   * A 404 (no such order, refund, job) changed nothing and is not saved: saving it let any client
   * grow the key table as fast as it sent, each with a commit, and a retry after the thing exists
   * should act on it.
   */
  private static boolean changedNothing(Answer a) {
    return !a.saved() && a.response().status() == 404;
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

  /** A 4xx problem as the answer to save; a 5xx goes to {@code serverError} (fails the request). */
  private static Future<Answer> problemAnswer(
      Throwable failure, String instance, Function<ApiProblem, Future<Answer>> serverError) {
    ApiProblem p = Problems.from(failure);
    if (p.status() >= 500) {
      return serverError.apply(p);
    }
    return Future.succeededFuture(
        new Answer(
            stored(
                new ApiResponse(
                    p.status(),
                    Problems.body(p, instance),
                    Map.of("Content-Type", Problems.CONTENT_TYPE))),
            false));
  }

  private static StoredResponse stored(ApiResponse response) {
    Map<String, String> headers = new HashMap<>(response.headers());
    headers.putIfAbsent("Content-Type", "application/json");
    return new StoredResponse(response.status(), headers, response.body().encode());
  }

  private void count(String operation, String result, boolean tally) {
    if (tally) {
      metrics.idempotencyRequest(operation, result);
    }
  }
}
