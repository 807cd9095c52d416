package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.db.Database;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An event whose transaction commits after a later one (a filled gap) is projected at its own
 * position. The chaos test found the read tables using the tracking token's position instead, which
 * for such an event is the later event's.
 */
class OutOfOrderCommitIT {

  private WriteModelHarness harness;
  private Database db;
  private EventStorageEngine engine;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("gaps");
    harness.start("projector", true);
    db = harness.database(4, "writer");
    engine = new AxonStorage(db).eventStorageEngine();
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private void append(String sku) {
    engine.appendEvents(WriteModelHarness.firstStockReceived(sku));
  }

  @Test
  void aLateCommitIsLoggedAtItsOwnPosition() throws Exception {
    CountDownLatch appended = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    // The early writer takes the lower position and commits last.
    CompletableFuture<Void> early =
        CompletableFuture.runAsync(
            () -> {
              Transaction tx = db.transactions().startTransaction();
              append("EARLY");
              appended.countDown();
              try {
                commit.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              tx.commit();
            });
    appended.await();
    Transaction tx = db.transactions().startTransaction();
    append("LATE");
    tx.commit();
    harness.awaitLong(1, "SELECT count(*) FROM inventory_log WHERE sku = 'LATE'");
    commit.countDown();
    early.join();
    harness.awaitLong(1, "SELECT count(*) FROM inventory_log WHERE sku = 'EARLY'");

    assertThat(
            harness.queryLong(
                "SELECT global_index FROM domain_event_entry WHERE aggregate_identifier = '"
                    + StreamIds.inventory("EARLY")
                    + "'"))
        .isLessThan(
            harness.queryLong(
                "SELECT global_index FROM domain_event_entry WHERE aggregate_identifier = '"
                    + StreamIds.inventory("LATE")
                    + "'"));
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM inventory_log l JOIN domain_event_entry e"
                    + " ON e.aggregate_identifier = '"
                    + StreamIds.INVENTORY
                    + "' || l.sku AND e.global_index = l.position"))
        .isEqualTo(2);
  }
}
