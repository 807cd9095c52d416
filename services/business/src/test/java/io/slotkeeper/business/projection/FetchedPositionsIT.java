package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.db.Database;
import java.util.List;
import java.util.stream.Collectors;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Processors need each event's own position; the storage engine remembers it as it fetches the
 * event, so a processor's batch costs no position query (it cost ~0.7 ms of PostgreSQL per batch
 * and processor under load).
 */
class FetchedPositionsIT {

  private WriteModelHarness harness;
  private Database db;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("fetched");
    db = harness.database(4, "fetched-test");
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  @Test
  void anEventsPositionIsKnownOnceTheStoreFetchedIt() throws Exception {
    // Positions that may not query: whatever they answer comes from the fetch.
    EventPositions positions =
        new EventPositions(
            () -> {
              throw new IllegalStateException("a position query was not expected");
            });
    EventStorageEngine engine = new AxonStorage(db, positions).eventStorageEngine();
    Transaction tx = db.transactions().startTransaction();
    for (String sku : List.of("A", "B", "C")) {
      engine.appendEvents(WriteModelHarness.firstStockReceived(sku));
    }
    tx.commit();
    List<String> unfetched =
        List.of(
            harness
                .queryString(
                    "SELECT string_agg(event_identifier, ',' ORDER BY global_index)"
                        + " FROM domain_event_entry")
                .split(","));
    assertThatThrownBy(() -> positions.of(unfetched.get(0))).hasMessageContaining("not expected");

    List<String> ids =
        engine
            .readEvents(null, false)
            .map(TrackedEventMessage::getIdentifier)
            .collect(Collectors.toList());
    assertThat(ids).hasSize(3);
    for (String id : ids) {
      assertThat(positions.of(id))
          .isEqualTo(
              harness.queryLong(
                  "SELECT global_index FROM domain_event_entry WHERE event_identifier = '"
                      + id
                      + "'"));
    }
  }
}
