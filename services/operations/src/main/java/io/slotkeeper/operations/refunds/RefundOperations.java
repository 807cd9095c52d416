package io.slotkeeper.operations.refunds;

import io.slotkeeper.business.orders.RefundSnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.operations.idempotency.ClaimedOperations;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.OneCommandOperations;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.CommandBridge;
import io.slotkeeper.operations.support.PathIds;
import io.slotkeeper.operations.support.Reads;
import io.slotkeeper.operations.support.RequestFields;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/** Refunds, protocol-free (shared by HTTP and gRPC): requested by clients, issued by operators. */
public final class RefundOperations {

  public static final String REQUEST = "refunds.request";
  public static final String ISSUE = "refunds.issue";
  static final long MAX_AMOUNT = 1_000_000_000_000_000L;

  private final CommandBridge commands;
  private final OneCommandOperations oneCommand;
  private final ClaimedOperations claimed;
  private final RefundQueries queries;

  public RefundOperations(
      CommandBridge commands,
      OneCommandOperations oneCommand,
      ClaimedOperations claimed,
      RefundQueries queries) {
    this.commands = commands;
    this.oneCommand = oneCommand;
    this.claimed = claimed;
    this.queries = queries;
  }

  /** Requests a refund of a COMPLETED order; {@code body} is {@code {"amountCents", "reason"}}. */
  public Future<Outcome> request(IdempotencyKey key, String orderId, JsonObject body) {
    PathIds.require("orderId", orderId);
    KeyedAnswers.require(key);
    RequestFields f = RequestFields.of(body, Set.of("amountCents", "reason"));
    long amount = f.number("amountCents", 1, MAX_AMOUNT);
    String reason = f.string("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    // The refund ID derives from the order and the caller's key: a retry is the same refund.
    RequestRefund cmd =
        new RequestRefund(
            DeterministicIds.forIdempotencyKey(REQUEST, key.value()),
            orderId,
            DeterministicIds.refundId(orderId, key.value()),
            amount,
            reason);
    return oneCommand.<RefundSnapshot>command(
        REQUEST,
        key,
        new JsonObject().put("orderId", orderId).put("body", body),
        "/v1/orders/" + orderId + "/refunds",
        cmd,
        o -> ApiResponse.created(json(o), "/v1/refunds/" + o.result().refundId()));
  }

  /** Issues a requested refund (operators); one issue per refund, whoever asks how often. */
  public Future<Outcome> issue(IdempotencyKey key, String refundId, JsonObject body) {
    PathIds.require("refundId", refundId);
    KeyedAnswers.require(key);
    RequestFields.of(body, Set.of()).throwIfInvalid();
    return claimed.run(
        ISSUE,
        key,
        new JsonObject().put("refundId", refundId),
        "/v1/refunds/" + refundId + "/issue",
        k ->
            orderOf(refundId)
                .compose(
                    orderId ->
                        commands.<RefundSnapshot>send(
                            new IssueRefund(
                                DeterministicIds.issueRefund(refundId), orderId, refundId)))
                .map(o -> ApiResponse.ok(json(o))));
  }

  private Future<String> orderOf(String refundId) {
    return queries
        .byId(refundId)
        .map(
            found ->
                found
                    .map(r -> r.getString("orderId"))
                    .orElseThrow(() -> ApiProblem.notFound("refund " + refundId + " is unknown")));
  }

  /** The refund from the read model; a 404 problem when unknown. */
  public Future<JsonObject> get(String refundId) {
    PathIds.require("refundId", refundId);
    return Reads.found(queries.byId(refundId), "refund " + refundId + " is unknown");
  }

  /** The refunds of an order. */
  public Future<JsonObject> byOrder(String orderId) {
    PathIds.require("orderId", orderId);
    return queries
        .byOrder(orderId)
        .map(list -> new JsonObject().put("orderId", orderId).put("refunds", list));
  }

  static JsonObject json(CommandOutcome<RefundSnapshot> outcome) {
    RefundSnapshot s = outcome.result();
    return new JsonObject()
        .put("refundId", s.refundId())
        .put("orderId", s.orderId())
        .put("amountCents", s.amountCents())
        .put("status", s.status().name())
        .put("reason", s.reason())
        .put("refundableCents", s.refundableCents());
  }
}
