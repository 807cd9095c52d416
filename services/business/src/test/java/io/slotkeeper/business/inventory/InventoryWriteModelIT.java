package io.slotkeeper.business.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.ConcurrentSend;
import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.inventory.InventoryCommand.ReleaseReservation;
import io.slotkeeper.events.inventory.InventoryCommand.ReserveStock;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Stock under concurrent reservations from two instances, and its projection, on PostgreSQL. */
class InventoryWriteModelIT {

  private WriteModelHarness harness;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("inventory");
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  @Test
  void fiftyConcurrentReservationsOnTwoInstancesNeverOversell() throws Exception {
    WriteModel a = harness.start("a", true);
    WriteModel b = harness.start("b", false);
    a.commands().send(new ReceiveStock("recv-1", "SKU-C", 10, "delivery")).join();

    List<ReserveStock> reserves =
        IntStream.range(0, 50)
            .mapToObj(i -> new ReserveStock("res-" + i, "SKU-C", "o-" + i, 1))
            .toList();
    Map<String, Integer> tally = ConcurrentSend.sendAll(List.of(a, b), reserves);

    assertThat(tally).isEqualTo(Map.of("applied", 10, "RuleViolationException", 40));
    harness.awaitLong(11, "SELECT count(*) FROM inventory_log");
    harness.awaitString(
        "10/10/0/v11",
        "SELECT on_hand || '/' || reserved || '/' || available || '/v' || version"
            + " FROM inventory WHERE sku = 'SKU-C'");
    assertThat(
            harness.queryLong(
                "SELECT sum(delta_reserved) FROM inventory_log WHERE reason = 'reserve'"))
        .isEqualTo(10);
    assertThat(
            harness.queryLong(
                "SELECT count(DISTINCT command_id) FROM inventory_log WHERE command_id LIKE 'res-%'"))
        .isEqualTo(10);
  }

  @Test
  void aRepeatedReleaseChangesStockOnce() {
    WriteModel a = harness.start("a", true);
    a.commands().send(new ReceiveStock("recv-1", "SKU-R", 5, "delivery")).join();
    a.commands().send(new ReserveStock("res-1", "SKU-R", "o-1", 2)).join();
    CommandOutcome<InventorySnapshot> first =
        a.commands()
            .<InventorySnapshot>send(new ReleaseReservation("rel-1", "SKU-R", "o-1"))
            .join();
    CommandOutcome<InventorySnapshot> sameId =
        a.commands()
            .<InventorySnapshot>send(new ReleaseReservation("rel-1", "SKU-R", "o-1"))
            .join();
    CommandOutcome<InventorySnapshot> newId =
        a.commands()
            .<InventorySnapshot>send(new ReleaseReservation("rel-2", "SKU-R", "o-1"))
            .join();

    assertThat(first.result().available()).isEqualTo(5);
    assertThat(sameId.duplicate()).isTrue();
    assertThat(newId.duplicate()).isFalse();
    assertThat(newId.result().noop()).isTrue();
    harness.awaitLong(3, "SELECT count(*) FROM inventory_log");
    assertThat(harness.queryLong("SELECT sum(delta_reserved) FROM inventory_log")).isZero();
  }

  @Test
  void aCachedCopyMadeStaleByAnotherInstanceNeverDecides() {
    WriteModel a = harness.start("a", true);
    WriteModel b = harness.start("b", false);
    // a loads and caches SKU-S with 10 available; b then takes all of it.
    a.commands().send(new ReceiveStock("recv-1", "SKU-S", 10, "delivery")).join();
    b.commands().send(new ReserveStock("res-b", "SKU-S", "o-b", 10)).join();

    // a's cached copy still says 10: its append collides, the copy is evicted, the retry decides
    // on the stored state and refuses.
    Throwable refused =
        a.commands().send(new ReserveStock("res-a", "SKU-S", "o-a", 1)).handle((o, e) -> e).join();
    assertThat(refused).isInstanceOf(RuleViolationException.class);

    // And a's next command works on the fresh state.
    CommandOutcome<InventorySnapshot> received =
        a.commands()
            .<InventorySnapshot>send(new ReceiveStock("recv-2", "SKU-S", 3, "delivery"))
            .join();
    assertThat(received.result().available()).isEqualTo(3);
    assertThat(received.result().reserved()).isEqualTo(10);
  }

  @Test
  void aRepeatedReceiptOnAKnownSkuIsADuplicateWithItsFirstOutcome() {
    WriteModel a = harness.start("a", true);
    CommandOutcome<InventorySnapshot> first =
        a.commands().<InventorySnapshot>send(new ReceiveStock("recv-1", "SKU-D", 4, "x")).join();
    CommandOutcome<InventorySnapshot> again =
        a.commands().<InventorySnapshot>send(new ReceiveStock("recv-1", "SKU-D", 4, "x")).join();

    assertThat(again.duplicate()).isTrue();
    assertThat(again.result().onHand()).isEqualTo(first.result().onHand()).isEqualTo(4);
    harness.awaitLong(1, "SELECT count(*) FROM inventory_log");
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger")).isEqualTo(1);
  }

  @Test
  void aNoopOnAnUnknownSkuSucceedsAndLeavesTheSkuUsable() {
    WriteModel a = harness.start("a", true);
    CommandOutcome<InventorySnapshot> noop =
        a.commands()
            .<InventorySnapshot>send(new ReleaseReservation("rel-x", "SKU-NEW", "o-1"))
            .join();
    assertThat(noop.result().noop()).isTrue();

    CommandOutcome<InventorySnapshot> received =
        a.commands().<InventorySnapshot>send(new ReceiveStock("recv-x", "SKU-NEW", 2, "x")).join();
    assertThat(received.result().onHand()).isEqualTo(2);
  }
}
