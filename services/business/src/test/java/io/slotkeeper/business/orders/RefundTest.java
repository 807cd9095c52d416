package io.slotkeeper.business.orders;

import io.slotkeeper.commands.AggregateNotFoundException;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.orders.OrderCommand.IssueRefund;
import io.slotkeeper.events.orders.OrderCommand.RejectRefund;
import io.slotkeeper.events.orders.OrderCommand.RequestRefund;
import io.slotkeeper.events.orders.OrderEvent.OrderCompleted;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderEvent.OrderProcessingStarted;
import io.slotkeeper.events.orders.OrderEvent.RefundIssued;
import io.slotkeeper.events.orders.OrderEvent.RefundRejected;
import io.slotkeeper.events.orders.OrderEvent.RefundRequested;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.RefundStatus;
import java.util.List;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One given/when/expect test per refund rule. */
class RefundTest {

  private static final OrderPlaced PLACED =
      new OrderPlaced("o-1", "c-1", "CNY", List.of(new OrderLine("SKU-1", 1, 100)), 100);
  private static final Object[] COMPLETED = {
    PLACED, new OrderProcessingStarted("o-1"), new OrderCompleted("o-1")
  };
  private static final RefundRequested R1 = new RefundRequested("o-1", "r-1", 60, "broken");

  private FixtureConfiguration<Order> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Order.class);
    fixture.registerCommandTargetResolver(
        cmd -> new VersionedAggregateIdentifier(((Command) cmd.getPayload()).streamId(), null));
  }

  private Object[] completedAnd(Object... more) {
    Object[] all = new Object[COMPLETED.length + more.length];
    System.arraycopy(COMPLETED, 0, all, 0, COMPLETED.length);
    System.arraycopy(more, 0, all, COMPLETED.length, more.length);
    return all;
  }

  @Test
  void aCompletedOrderCanBeRefunded() {
    fixture
        .given(COMPLETED)
        .when(new RequestRefund("c1", "o-1", "r-1", 60, "broken"))
        .expectEvents(R1)
        .expectResultMessagePayload(
            new RefundSnapshot("r-1", "o-1", 60, RefundStatus.REQUESTED, "broken", 40, 4, false));
  }

  @Test
  void aProcessingOrderCannotBeRefundedAndTheStateIsNamed() {
    fixture
        .given(PLACED, new OrderProcessingStarted("o-1"))
        .when(new RequestRefund("c1", "o-1", "r-1", 10, "x"))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("cannot refund order o-1: it is PROCESSING")
        .expectNoEvents();
  }

  @Test
  void aRefundAboveTheBalanceNamesTheBalance() {
    fixture
        .given(completedAnd(R1))
        .when(new RequestRefund("c2", "o-1", "r-2", 41, "x"))
        .expectException(RuleViolationException.class)
        .expectExceptionMessage("refund of 41 exceeds the refundable balance of order o-1: 40")
        .expectNoEvents();
  }

  @Test
  void theExactBalanceCanBeRefunded() {
    fixture
        .given(completedAnd(R1))
        .when(new RequestRefund("c2", "o-1", "r-2", 40, "x"))
        .expectEvents(new RefundRequested("o-1", "r-2", 40, "x"));
  }

  @Test
  void issuedRefundsStillHoldTheBalance() {
    fixture
        .given(completedAnd(R1, new RefundIssued("o-1", "r-1", 60)))
        .when(new RequestRefund("c3", "o-1", "r-2", 41, "x"))
        .expectException(RuleViolationException.class);
  }

  @Test
  void aRejectedRefundReturnsItsAmountToTheBalance() {
    fixture
        .given(completedAnd(R1, new RefundRejected("o-1", "r-1", 60, "no proof")))
        .when(new RequestRefund("c3", "o-1", "r-2", 100, "x"))
        .expectEvents(new RefundRequested("o-1", "r-2", 100, "x"));
  }

  @Test
  void aZeroRefundIsInvalid() {
    fixture
        .given(COMPLETED)
        .when(new RequestRefund("c1", "o-1", "r-1", 0, "x"))
        .expectException(InvalidCommandException.class);
  }

  @Test
  void theSameRefundUnderANewCommandIsRefused() {
    fixture
        .given(completedAnd(R1))
        .when(new RequestRefund("c2", "o-1", "r-1", 60, "broken"))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("refund r-1 of order o-1 is already REQUESTED");
  }

  @Test
  void aRequestedRefundIsIssued() {
    fixture
        .given(completedAnd(R1))
        .when(new IssueRefund("c2", "o-1", "r-1"))
        .expectEvents(new RefundIssued("o-1", "r-1", 60))
        .expectResultMessagePayload(
            new RefundSnapshot("r-1", "o-1", 60, RefundStatus.ISSUED, "broken", 40, 5, false));
  }

  @Test
  void issuingTwiceIsANoopNotASecondPayout() {
    fixture
        .given(completedAnd(R1, new RefundIssued("o-1", "r-1", 60)))
        .when(new IssueRefund("c3", "o-1", "r-1"))
        .expectNoEvents()
        .expectResultMessagePayload(
            new RefundSnapshot("r-1", "o-1", 60, RefundStatus.ISSUED, "broken", 40, 5, true));
  }

  @Test
  void issuingAnUnknownRefundIsNotFound() {
    fixture
        .given(COMPLETED)
        .when(new IssueRefund("c1", "o-1", "r-9"))
        .expectException(AggregateNotFoundException.class);
  }

  @Test
  void aRejectedRefundCannotBeIssued() {
    fixture
        .given(completedAnd(R1, new RefundRejected("o-1", "r-1", 60, "no")))
        .when(new IssueRefund("c3", "o-1", "r-1"))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("cannot issue refund r-1: it is REJECTED");
  }

  @Test
  void aRequestedRefundIsRejected() {
    fixture
        .given(completedAnd(R1))
        .when(new RejectRefund("c2", "o-1", "r-1", "no proof"))
        .expectEvents(new RefundRejected("o-1", "r-1", 60, "no proof"))
        .expectResultMessagePayload(
            new RefundSnapshot("r-1", "o-1", 60, RefundStatus.REJECTED, "broken", 100, 5, false));
  }

  @Test
  void rejectingTwiceIsANoop() {
    fixture
        .given(completedAnd(R1, new RefundRejected("o-1", "r-1", 60, "no")))
        .when(new RejectRefund("c3", "o-1", "r-1", "again"))
        .expectNoEvents()
        .expectResultMessagePayload(
            new RefundSnapshot("r-1", "o-1", 60, RefundStatus.REJECTED, "broken", 100, 5, true));
  }

  @Test
  void anIssuedRefundCannotBeRejected() {
    fixture
        .given(completedAnd(R1, new RefundIssued("o-1", "r-1", 60)))
        .when(new RejectRefund("c3", "o-1", "r-1", "late"))
        .expectException(IllegalTransitionException.class);
  }

  @Test
  void rejectingAnUnknownRefundIsNotFound() {
    fixture
        .given(COMPLETED)
        .when(new RejectRefund("c1", "o-1", "r-9", "x"))
        .expectException(AggregateNotFoundException.class);
  }
}
