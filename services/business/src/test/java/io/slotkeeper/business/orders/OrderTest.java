package io.slotkeeper.business.orders;

import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.FailOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.events.orders.OrderEvent.OrderCompleted;
import io.slotkeeper.events.orders.OrderEvent.OrderFailed;
import io.slotkeeper.events.orders.OrderEvent.OrderPlaced;
import io.slotkeeper.events.orders.OrderEvent.OrderProcessingStarted;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.OrderStatus;
import java.util.List;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One given/when/expect test per order rule. */
class OrderTest {

  private static final List<OrderLine> LINES =
      List.of(new OrderLine("SKU-1", 2, 1_000), new OrderLine("SKU-2", 1, 500));
  private static final OrderPlaced PLACED = new OrderPlaced("o-1", "c-1", "CNY", LINES, 2_500);

  private FixtureConfiguration<Order> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Order.class);
    fixture.registerCommandTargetResolver(
        cmd ->
            new VersionedAggregateIdentifier(
                ((io.slotkeeper.events.Command) cmd.getPayload()).streamId(), null));
  }

  @Test
  void placingAnOrderSumsItsLines() {
    fixture
        .givenNoPriorActivity()
        .when(new PlaceOrder("cmd-1", "o-1", "c-1", "CNY", LINES))
        .expectEvents(PLACED)
        .expectResultMessagePayload(new OrderSnapshot("o-1", OrderStatus.NEW, 2_500, 1));
  }

  @Test
  void anOrderWithoutLinesIsInvalid() {
    fixture
        .givenNoPriorActivity()
        .when(new PlaceOrder("cmd-1", "o-1", "c-1", "CNY", List.of()))
        .expectException(InvalidCommandException.class)
        .expectNoEvents();
  }

  @Test
  void anUnknownCurrencyIsInvalid() {
    fixture
        .givenNoPriorActivity()
        .when(new PlaceOrder("cmd-1", "o-1", "c-1", "XXY", LINES))
        .expectException(InvalidCommandException.class);
  }

  @Test
  void aTotalThatOverflowsIsInvalid() {
    List<OrderLine> huge =
        java.util.stream.IntStream.range(0, 10)
            .mapToObj(i -> new OrderLine("S" + i, 1_000_000, OrderRules.MAX_UNIT_PRICE_CENTS))
            .toList();
    fixture
        .givenNoPriorActivity()
        .when(new PlaceOrder("cmd-1", "o-1", "c-1", "CNY", huge))
        .expectException(InvalidCommandException.class);
  }

  @Test
  void aNewOrderCanBeCancelled() {
    fixture
        .given(PLACED)
        .when(new CancelOrder("cmd-2", "o-1", "customer asked"))
        .expectEvents(new OrderCancelled("o-1", "customer asked"))
        .expectResultMessagePayload(new OrderSnapshot("o-1", OrderStatus.CANCELLED, 2_500, 2));
  }

  @Test
  void aProcessingOrderCannotBeCancelled() {
    fixture
        .given(PLACED, new OrderProcessingStarted("o-1"))
        .when(new CancelOrder("cmd-3", "o-1", "too late"))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("cannot cancel order o-1: it is PROCESSING")
        .expectNoEvents();
  }

  @Test
  void aCancelledOrderCannotBeCancelledAgainUnderANewCommand() {
    fixture
        .given(PLACED, new OrderCancelled("o-1", "x"))
        .when(new CancelOrder("cmd-4", "o-1", "again"))
        .expectException(IllegalTransitionException.class);
  }

  @Test
  void aNewOrderStartsProcessing() {
    fixture
        .given(PLACED)
        .when(new StartOrderProcessing("cmd-2", "o-1"))
        .expectEvents(new OrderProcessingStarted("o-1"));
  }

  @Test
  void aProcessingOrderCompletes() {
    fixture
        .given(PLACED, new OrderProcessingStarted("o-1"))
        .when(new CompleteOrder("cmd-3", "o-1"))
        .expectEvents(new OrderCompleted("o-1"));
  }

  @Test
  void aNewOrderCannotCompleteWithoutProcessing() {
    fixture
        .given(PLACED)
        .when(new CompleteOrder("cmd-3", "o-1"))
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("cannot complete order o-1: it is NEW");
  }

  @Test
  void aProcessingOrderFailsWithAReason() {
    fixture
        .given(PLACED, new OrderProcessingStarted("o-1"))
        .when(new FailOrder("cmd-3", "o-1", "out of stock"))
        .expectEvents(new OrderFailed("o-1", "out of stock"));
  }

  @Test
  void aCompletedOrderCannotFail() {
    fixture
        .given(PLACED, new OrderProcessingStarted("o-1"), new OrderCompleted("o-1"))
        .when(new FailOrder("cmd-4", "o-1", "late"))
        .expectException(IllegalTransitionException.class);
  }
}
