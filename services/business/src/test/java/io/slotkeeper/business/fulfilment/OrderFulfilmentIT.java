package io.slotkeeper.business.fulfilment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.inventory.InventoryCommand.CountStock;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.OrderStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fulfilment flow "killed" after every step and resumed gives what one clean run gives. Each
 * run uses its own SKUs and order (prefix p); the compared state strips the prefix.
 */
class OrderFulfilmentIT {

  private WriteModelHarness harness;
  private WriteModel crashed;
  private WriteModel resumer;
  private OrderFulfilment fulfilment;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("fulfilment");
    crashed = harness.start("crashed", false);
    resumer = harness.start("resumer", true);
    fulfilment = harness.fulfilment(resumer);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  /** Stock of A and B, and an order of A x2, B x1, A x1 (A twice: 3 in one reservation). */
  private String setUpRun(String p, int stockA, int stockB) {
    send(new ReceiveStock("recv-" + p + "-A", p + "-A", stockA, "delivery"));
    send(new ReceiveStock("recv-" + p + "-B", p + "-B", stockB, "delivery"));
    String orderId = p + "-order";
    List<OrderLine> lines =
        List.of(
            new OrderLine(p + "-A", 2, 100),
            new OrderLine(p + "-B", 1, 50),
            new OrderLine(p + "-A", 1, 100));
    send(new PlaceOrder("place-" + p, orderId, "c-1", "CNY", lines));
    return orderId;
  }

  private void send(Command command) {
    crashed.commands().send(command).join();
  }

  /** Inventory, its log and the order of run p, without positions, timestamps or the prefix. */
  private String state(String p) {
    String inventory =
        harness.queryString(
            "SELECT string_agg(replace(sku, '"
                + p
                + "', '') || ':' || on_hand || '/' || reserved || '/' || available || '/v' ||"
                + " version, ' ' ORDER BY sku) FROM inventory WHERE sku LIKE '"
                + p
                + "-%'");
    String log =
        harness.queryString(
            "SELECT string_agg(replace(sku, '"
                + p
                + "', '') || ' ' || delta_on_hand || ' ' || delta_reserved || ' ' || reason"
                + " || ' ' || coalesce(replace(order_id, '"
                + p
                + "', ''), '-') || ' ' || (command_id IS NOT NULL), ', ' ORDER BY position)"
                + " FROM inventory_log WHERE sku LIKE '"
                + p
                + "-%'");
    String order =
        harness.queryString(
            "SELECT status || ' ' || coalesce(replace(status_reason, '"
                + p
                + "', ''), '-') || ' v' || version FROM orders WHERE order_id = '"
                + p
                + "-order'");
    return inventory + " | " + log + " | " + order;
  }

  private String awaitState(String p, String expected) {
    await().atMost(Duration.ofSeconds(20)).until(() -> expected.equals(state(p)));
    return state(p);
  }

  private FulfilmentResult process(String orderId) {
    return fulfilment.process(orderId).join();
  }

  private static final String COMPLETED_STATE =
      "-A:2/0/2/v3 -B:4/0/4/v3"
          + " | -A 5 0 delivery - true, -B 5 0 delivery - true,"
          + " -A 0 3 reserve -order true, -B 0 1 reserve -order true,"
          + " -A -3 -3 commit -order true, -B -1 -1 commit -order true"
          + " | COMPLETED - v3";

  private static final String FAILED_STATE =
      "-A:5/0/5/v3 -B:0/0/0/v2"
          + " | -A 5 0 delivery - true, -B 1 0 delivery - true,"
          + " -B -1 0 count as of 2025-01-01T00:00:00Z - true,"
          + " -A 0 3 reserve -order true, -A 0 -3 release -order true"
          + " | FAILED insufficient stock of -B v3";

  @Test
  void aCleanRunCompletesAndAggregatesLinesPerSku() {
    String orderId = setUpRun("CLEAN", 5, 5);
    assertThat(process(orderId))
        .isEqualTo(new FulfilmentResult(orderId, OrderStatus.COMPLETED, null));
    awaitState("CLEAN", COMPLETED_STATE);
    // Running a finished order again changes nothing.
    assertThat(process(orderId).status()).isEqualTo(OrderStatus.COMPLETED);
    assertThat(harness.queryLong("SELECT count(*) FROM inventory_log")).isEqualTo(6);
  }

  @Test
  void aRunKilledAfterAnyStepResumesToTheCleanResult() {
    for (int k = 0; k <= 6; k++) {
      String p = "K" + k;
      String orderId = setUpRun(p, 5, 5);
      List<Command> steps =
          List.of(
              FulfilmentSteps.start(orderId),
              FulfilmentSteps.reserve(orderId, p + "-A", 3),
              FulfilmentSteps.reserve(orderId, p + "-B", 1),
              FulfilmentSteps.commit(orderId, p + "-A"),
              FulfilmentSteps.commit(orderId, p + "-B"),
              FulfilmentSteps.complete(orderId));
      steps.subList(0, k).forEach(this::send); // then the "crash"
      assertThat(process(orderId).status())
          .as("killed after %d steps", k)
          .isEqualTo(OrderStatus.COMPLETED);
      assertThat(awaitState(p, COMPLETED_STATE))
          .as("killed after %d steps", k)
          .isEqualTo(COMPLETED_STATE);
    }
  }

  /** B exists but has nothing available (its one unit counted away), so the flow must fail. */
  private String setUpFailingRun(String p) {
    String orderId = setUpRun(p, 5, 1);
    send(new CountStock("count-" + p, p + "-B", 0, Instant.parse("2025-01-01T00:00:00Z")));
    return orderId;
  }

  /** The failure path's steps that apply (reserving B is refused and leaves no trace). */
  private static List<Command> failingSteps(String p, String orderId) {
    return List.of(
        FulfilmentSteps.start(orderId),
        FulfilmentSteps.reserve(orderId, p + "-A", 3),
        FulfilmentSteps.release(orderId, p + "-A"),
        FulfilmentSteps.release(orderId, p + "-B"),
        FulfilmentSteps.fail(orderId, p + "-B"));
  }

  @Test
  void aShortSkuReleasesEveryReservationAndFailsTheOrder() {
    String orderId = setUpFailingRun("F");
    FulfilmentResult result = process(orderId);
    assertThat(result)
        .isEqualTo(new FulfilmentResult(orderId, OrderStatus.FAILED, "insufficient stock of F-B"));
    awaitState("F", FAILED_STATE);
  }

  @Test
  void aFailingRunKilledAfterAnyStepResumesToTheCleanResult() {
    for (int k = 0; k <= 5; k++) {
      String p = "F" + k;
      String orderId = setUpFailingRun(p);
      failingSteps(p, orderId).subList(0, k).forEach(this::send);
      assertThat(process(orderId).status()).as("killed after %d", k).isEqualTo(OrderStatus.FAILED);
      assertThat(awaitState(p, FAILED_STATE)).as("killed after %d", k).isEqualTo(FAILED_STATE);
    }
  }

  @Test
  void onceReleasingBeganStockArrivingLaterDoesNotChangeTheDecision() {
    String orderId = setUpFailingRun("S");
    send(FulfilmentSteps.start(orderId));
    send(FulfilmentSteps.reserve(orderId, "S-A", 3));
    assertThatThrownBy(() -> send(FulfilmentSteps.reserve(orderId, "S-B", 1)))
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(RuleViolationException.class);
    send(FulfilmentSteps.release(orderId, "S-A"));
    // Crash; then B is delivered before the flow is resumed.
    send(new ReceiveStock("recv-late", "S-B", 5, "late delivery"));

    FulfilmentResult result = process(orderId);

    assertThat(result.status()).isEqualTo(OrderStatus.FAILED);
    assertThat(result.reason()).isEqualTo("insufficient stock of S-B");
    harness.awaitString(
        "5/0/5 FAILED",
        "SELECT i.on_hand || '/' || i.reserved || '/' || i.available || ' '"
            + " || o.status FROM inventory i, orders o"
            + " WHERE i.sku = 'S-B' AND o.order_id = 'S-order'");
    assertThat(harness.queryLong("SELECT count(*) FROM inventory_log WHERE sku = 'S-B'"))
        .isEqualTo(3); // delivery, count, late delivery: never reserved
  }

  @Test
  void recoverStuckResumesAnAbandonedOrder() {
    String stuck = setUpRun("R", 5, 5);
    send(FulfilmentSteps.start(stuck));
    send(FulfilmentSteps.reserve(stuck, "R-A", 3));
    String fresh = setUpRun("N", 5, 5); // NEW, not stuck
    harness.awaitString("PROCESSING", "SELECT status FROM orders WHERE order_id = '" + stuck + "'");

    assertThat(fulfilment.recoverStuck(Duration.ofHours(1)).join()).isEmpty();
    List<FulfilmentResult> recovered = fulfilment.recoverStuck(Duration.ZERO).join();

    assertThat(recovered).containsExactly(new FulfilmentResult(stuck, OrderStatus.COMPLETED, null));
    awaitState("R", COMPLETED_STATE);
    assertThat(harness.queryString("SELECT status FROM orders WHERE order_id = '" + fresh + "'"))
        .isEqualTo("NEW");
  }
}
