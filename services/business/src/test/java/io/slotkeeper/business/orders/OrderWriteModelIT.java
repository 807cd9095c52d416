package io.slotkeeper.business.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.commands.AggregateAlreadyExistsException;
import io.slotkeeper.commands.CommandIdReusedException;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.OrderStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The duplicate-command path and the projection's exactly-once, on real PostgreSQL. */
class OrderWriteModelIT {

  private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 3, 700));

  private WriteModelHarness harness;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("orders");
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private static PlaceOrder place(String commandId, String orderId) {
    return new PlaceOrder(commandId, orderId, "c-1", "CNY", LINES);
  }

  private static <R> CommandOutcome<R> outcome(CompletableFuture<CommandOutcome<R>> f) {
    return f.join();
  }

  @Test
  void aRepeatedCommandIsADuplicateWithTheOriginalOutcome() {
    WriteModel model = harness.start("a", true);
    CommandOutcome<OrderSnapshot> first = outcome(model.commands().send(place("cmd-1", "o-1")));
    CommandOutcome<OrderSnapshot> again = outcome(model.commands().send(place("cmd-1", "o-1")));

    assertThat(first.duplicate()).isFalse();
    assertThat(again.duplicate()).isTrue();
    assertThat(again.result()).isEqualTo(first.result());
    assertThat(first.result()).isEqualTo(new OrderSnapshot("o-1", OrderStatus.NEW, 2_100, 1));
    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isEqualTo(1);

    CommandOutcome<OrderSnapshot> cancel =
        outcome(model.commands().send(new CancelOrder("cmd-2", "o-1", "x")));
    CommandOutcome<OrderSnapshot> cancelAgain =
        outcome(model.commands().send(new CancelOrder("cmd-2", "o-1", "x")));
    assertThat(cancelAgain.duplicate()).isTrue();
    assertThat(cancelAgain.result()).isEqualTo(cancel.result());
    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isEqualTo(2);
  }

  @Test
  void aNewCommandOnAnExistingOrderIsRejectedNotDuplicated() {
    WriteModel model = harness.start("a", true);
    outcome(model.commands().send(place("cmd-1", "o-1")));
    assertThatThrownBy(() -> outcome(model.commands().send(place("cmd-other", "o-1"))))
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(AggregateAlreadyExistsException.class);
    outcome(model.commands().send(new CancelOrder("cmd-2", "o-1", "x")));
    assertThatThrownBy(() -> outcome(model.commands().send(new CancelOrder("cmd-3", "o-1", "x"))))
        .hasCauseInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("it is CANCELLED");
  }

  @Test
  void aCommandIdReusedForAnotherPayloadIsRefused() {
    WriteModel model = harness.start("a", true);
    outcome(model.commands().send(place("cmd-1", "o-1")));
    assertThatThrownBy(
            () ->
                outcome(model.commands().send(new PlaceOrder("cmd-1", "o-1", "c-2", "CNY", LINES))))
        .hasCauseInstanceOf(CommandIdReusedException.class);
    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isEqualTo(1);
  }

  @Test
  void concurrentCopiesOnTwoCommandBusesApplyOnce() throws Exception {
    WriteModel a = harness.start("a", true);
    WriteModel b = harness.start("b", false);
    int copies = 16;
    ExecutorService pool = Executors.newFixedThreadPool(copies);
    try {
      for (int round = 0; round < 5; round++) {
        String orderId = "o-" + round;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<CommandOutcome<OrderSnapshot>>> futures = new ArrayList<>();
        for (int i = 0; i < copies; i++) {
          WriteModel target = i % 2 == 0 ? a : b;
          futures.add(
              pool.submit(
                  () -> {
                    go.await();
                    return outcome(
                        target.commands().<OrderSnapshot>send(place("cmd-" + orderId, orderId)));
                  }));
        }
        go.countDown();
        int applied = 0;
        for (Future<CommandOutcome<OrderSnapshot>> f : futures) {
          CommandOutcome<OrderSnapshot> outcome = f.get();
          assertThat(outcome.result().orderId()).isEqualTo(orderId);
          applied += outcome.duplicate() ? 0 : 1;
        }
        assertThat(applied).as("round %d", round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isEqualTo(5);
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger")).isEqualTo(5);
  }

  @Test
  void projectionCatchesUpExactlyOnceAfterACrashBetweenAppendAndProjection() throws Exception {
    WriteModel crashed = harness.start("crashed", false);
    outcome(crashed.commands().send(place("cmd-1", "o-1")));
    outcome(crashed.commands().send(new CancelOrder("cmd-2", "o-1", "changed mind")));
    outcome(crashed.commands().send(place("cmd-3", "o-2")));
    crashed.close();
    assertThat(harness.queryLong("SELECT count(*) FROM orders")).isZero();

    WriteModel restarted = harness.start("restarted", true);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> harness.queryLong("SELECT count(*) FROM orders") == 2);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                "CANCELLED"
                    .equals(
                        harness.queryString("SELECT status FROM orders WHERE order_id = 'o-1'")));
    assertThat(harness.queryLong("SELECT version FROM orders WHERE order_id = 'o-1'")).isEqualTo(2);

    // A rebuild from the store gives the same table.
    String before =
        harness.queryString(
            "SELECT string_agg(order_id || status || version, ',' ORDER BY order_id) FROM orders");
    restarted.rebuild(OrderProjection.NAME);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                before.equals(
                    harness.queryString(
                        "SELECT string_agg(order_id || status || version, ',' ORDER BY order_id) FROM orders")));
  }
}
