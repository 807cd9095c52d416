package io.slotkeeper.business.orders;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.slotkeeper.commands.AggregateNotFoundException;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.FailOrder;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.RejectRefund;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderCompleted;
import io.slotkeeper.events.orders.OrderEvent.OrderFailed;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderEvent.OrderProcessingStarted;
import io.slotkeeper.events.orders.OrderEvent.RefundIssued;
import io.slotkeeper.events.orders.OrderEvent.RefundRejected;
import io.slotkeeper.events.orders.OrderEvent.RefundRequested;
import io.slotkeeper.events.orders.OrderStatus;
import io.slotkeeper.events.orders.RefundStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * The order state machine. Command handlers validate and apply; event-sourcing handlers only assign
 * state. Illegal transitions name the current state.
 *
 * <p>Refunds are entities of the order, not aggregates of their own: the rule "requested plus
 * issued refunds never exceed the order's amount" spans all refunds of an order, so they must share
 * one consistency boundary. Here every refund command is checked against the order's current state
 * and appended at the order's next sequence number; two concurrent requests cannot both pass,
 * because the event store accepts only one event per sequence number and the loser is retried on
 * the new balance.
 */
public class Order {

  private String orderId;
  private OrderStatus status;
  private long amountCents;
  private final Map<String, Refund> refunds = new HashMap<>();
  private long version;

  protected Order() {
    // for Axon
  }

  /**
   * Axon's aggregate identifier: the stream of the order, namespaced so that another aggregate type
   * with the same business ID never shares it (see {@link StreamIds}).
   */
  @AggregateIdentifier
  private String streamId() {
    return StreamIds.order(orderId);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.ALWAYS)
  OrderSnapshot handle(PlaceOrder cmd) {
    OrderRules.validate(cmd);
    apply(
        new OrderPlaced(
            cmd.orderId(), cmd.customerId(), cmd.currency(), cmd.items(), OrderRules.amount(cmd)));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(CancelOrder cmd) {
    requireTransition(OrderStatus.CANCELLED, "cancel");
    apply(new OrderCancelled(orderId, cmd.reason()));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(StartOrderProcessing cmd) {
    requireTransition(OrderStatus.PROCESSING, "start processing");
    apply(new OrderProcessingStarted(orderId));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(CompleteOrder cmd) {
    requireTransition(OrderStatus.COMPLETED, "complete");
    apply(new OrderCompleted(orderId));
    return snapshot();
  }

  @CommandHandler
  OrderSnapshot handle(FailOrder cmd) {
    if (cmd.reason() == null || cmd.reason().isBlank()) {
      throw new InvalidCommandException("a failed order needs a reason");
    }
    requireTransition(OrderStatus.FAILED, "fail");
    apply(new OrderFailed(orderId, cmd.reason()));
    return snapshot();
  }

  @CommandHandler
  RefundSnapshot handle(RequestRefund cmd) {
    if (cmd.refundId() == null || cmd.refundId().isBlank() || cmd.amountCents() <= 0) {
      throw new InvalidCommandException("a refund needs a refundId and an amount > 0");
    }
    if (status != OrderStatus.COMPLETED) {
      throw new IllegalTransitionException(
          orderId, status.name(), "cannot refund order " + orderId + ": it is " + status);
    }
    Refund existing = refunds.get(cmd.refundId());
    if (existing != null) {
      // The same refund under a new command ID: the first request stands.
      throw new IllegalTransitionException(
          cmd.refundId(),
          existing.status().name(),
          "refund " + cmd.refundId() + " of order " + orderId + " is already " + existing.status());
    }
    if (cmd.amountCents() > refundableCents()) {
      throw new RuleViolationException(
          orderId,
          "refund of "
              + cmd.amountCents()
              + " exceeds the refundable balance of order "
              + orderId
              + ": "
              + refundableCents());
    }
    apply(new RefundRequested(orderId, cmd.refundId(), cmd.amountCents(), cmd.reason()));
    return refundSnapshot(cmd.refundId(), false);
  }

  @CommandHandler
  RefundSnapshot handle(IssueRefund cmd) {
    return closeRefund(
        cmd.refundId(),
        RefundStatus.ISSUED,
        "issue",
        r -> new RefundIssued(orderId, cmd.refundId(), r.amountCents()));
  }

  @CommandHandler
  RefundSnapshot handle(RejectRefund cmd) {
    return closeRefund(
        cmd.refundId(),
        RefundStatus.REJECTED,
        "reject",
        r -> new RefundRejected(orderId, cmd.refundId(), r.amountCents(), cmd.reason()));
  }

  /**
   * Moves a REQUESTED refund to {@code target}. Already there: a no-op answer, never a second
   * payout; in the other final state: an illegal transition; unknown: not found.
   */
  private RefundSnapshot closeRefund(
      String refundId, RefundStatus target, String verb, Function<Refund, Object> event) {
    Refund refund = refundId == null ? null : refunds.get(refundId);
    if (refund == null) {
      throw new AggregateNotFoundException("refund of order " + orderId, refundId);
    }
    if (refund.status() == target) {
      return refundSnapshot(refundId, true);
    }
    if (refund.status() != RefundStatus.REQUESTED) {
      throw new IllegalTransitionException(
          refundId,
          refund.status().name(),
          "cannot " + verb + " refund " + refundId + ": it is " + refund.status());
    }
    apply(event.apply(refund));
    return refundSnapshot(refundId, false);
  }

  /** The order's amount not held by requested or issued refunds. */
  private long refundableCents() {
    long held = 0;
    for (Refund refund : refunds.values()) {
      held += refund.heldCents();
    }
    return amountCents - held;
  }

  private RefundSnapshot refundSnapshot(String refundId, boolean noop) {
    Refund refund = refunds.get(refundId);
    return new RefundSnapshot(
        refundId,
        orderId,
        refund.amountCents(),
        refund.status(),
        refund.reason(),
        refundableCents(),
        version,
        noop);
  }

  private void requireTransition(OrderStatus next, String verb) {
    if (!status.canMoveTo(next)) {
      throw new IllegalTransitionException(
          orderId, status.name(), "cannot " + verb + " order " + orderId + ": it is " + status);
    }
  }

  private OrderSnapshot snapshot() {
    return new OrderSnapshot(orderId, status, amountCents, version);
  }

  @EventSourcingHandler
  void on(OrderPlaced e, @SequenceNumber long seq) {
    orderId = e.orderId();
    amountCents = e.amountCents();
    status = OrderStatus.NEW;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderCancelled e, @SequenceNumber long seq) {
    status = OrderStatus.CANCELLED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderProcessingStarted e, @SequenceNumber long seq) {
    status = OrderStatus.PROCESSING;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderCompleted e, @SequenceNumber long seq) {
    status = OrderStatus.COMPLETED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(OrderFailed e, @SequenceNumber long seq) {
    status = OrderStatus.FAILED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(RefundRequested e, @SequenceNumber long seq) {
    refunds.put(e.refundId(), new Refund(e.amountCents(), RefundStatus.REQUESTED, e.reason()));
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(RefundIssued e, @SequenceNumber long seq) {
    refunds.computeIfPresent(e.refundId(), (id, r) -> r.withStatus(RefundStatus.ISSUED));
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(RefundRejected e, @SequenceNumber long seq) {
    refunds.computeIfPresent(e.refundId(), (id, r) -> r.withStatus(RefundStatus.REJECTED));
    version = seq + 1;
  }
}
