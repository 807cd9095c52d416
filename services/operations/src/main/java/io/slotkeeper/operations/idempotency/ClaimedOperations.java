package io.slotkeeper.operations.idempotency;

import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.idempotency.RequestFingerprint;
import io.slotkeeper.operations.idempotency.KeyedAnswers.Answer;
import io.slotkeeper.operations.support.ApiResponse;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operations that hold their Idempotency-Key by a claim (any operation that is not exactly one
 * command: several commands, a job run, a rebuild): the key's row is claimed (IN_FLIGHT) before the
 * operation runs, then completed with its answer, or released after a 404 or a 5xx so a retry can
 * run. A request with the key while the first runs is 409 ({@link KeyedAnswers#IN_FLIGHT}); a claim
 * whose holder died is taken over after the lock timeout (command IDs derive from the key, so a
 * re-execution is a duplicate). See {@link KeyedAnswers} for the rules both protocols share.
 */
public final class ClaimedOperations {

  private static final Logger log = LoggerFactory.getLogger(ClaimedOperations.class);

  private final IdempotencyStore store;
  private final KeyedAnswers answers;

  public ClaimedOperations(IdempotencyStore store, KeyedAnswers answers) {
    this.store = store;
    this.answers = answers;
  }

  /**
   * Runs {@code execute} (given the key as sent) at most once per key. {@code request} is the
   * validated request (path parameters and body) that identifies it for the fingerprint; {@code
   * instance} is the resource path named in saved problems. Fails (with an {@link
   * io.slotkeeper.operations.problem.ApiProblem} or a failure {@link
   * io.slotkeeper.operations.problem.Problems#from} maps) when nothing is saved: in flight,
   * mismatch, storage down, 5xx.
   */
  public Future<Outcome> run(
      String operation,
      IdempotencyKey key,
      JsonObject request,
      String instance,
      Function<String, Future<ApiResponse>> execute) {
    String fingerprint = RequestFingerprint.of(operation, request);
    return answers.admitted(
        key,
        operation,
        fingerprint,
        () -> store.claim(key, operation, fingerprint),
        () -> executeAndSave(key, instance, execute));
  }

  private Future<Outcome> executeAndSave(
      IdempotencyKey key, String instance, Function<String, Future<ApiResponse>> execute) {
    Future<ApiResponse> result;
    try {
      result = execute.apply(key.value());
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    return answer(key, instance, result.map(r -> new Answer(KeyedAnswers.stored(r), false)));
  }

  /**
   * The answer of an execution that began: any response, a 4xx problem included, is saved now; a
   * 404 or a 5xx releases the key.
   */
  private Future<Outcome> answer(IdempotencyKey key, String instance, Future<Answer> result) {
    return result
        .recover(
            failure ->
                KeyedAnswers.problemAnswer(
                    failure,
                    instance,
                    p -> store.release(key).transform(ignored -> Future.failedFuture(p))))
        .compose(
            a -> {
              Outcome outcome = new Outcome(a.response(), false);
              return a.changedNothing()
                  ? store.release(key).map(outcome)
                  : store.complete(key, a.response()).map(outcome);
            })
        .onFailure(e -> log.warn("request with Idempotency-Key failed: {}", e.getMessage()));
  }
}
