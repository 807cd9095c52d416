package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.axon.SignallingEventStore;
import io.slotkeeper.platform.db.Database;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.eventhandling.TrackingEventStream;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Local commits close together share one fetch of the store's producer and one wake-up of the
 * processors' streams (see {@link SignallingEventStore}): a busy instance otherwise fetched about
 * twice per request, and its processors ran one transaction per command.
 */
class CoalescedWakeUpsIT {

  private static final int COMMITS = 20;

  // SignallingEventStore.LOCAL_COMMIT_COALESCE_MS
  private static final long COALESCE_MS = 50;

  private WriteModelHarness harness;
  private SignallingEventStore store;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("coalesced");
    Database db = harness.database(4, "coalesced-test");
    AxonStorage storage = new AxonStorage(db, new EventPositions(db.transactions()));
    // A fetch period far beyond the test: every wake-up it sees comes from a local commit.
    store =
        SignallingEventStore.build(
            EmbeddedEventStore.builder().storageEngine(storage.eventStorageEngine()), 600_000);
  }

  @AfterEach
  void tearDown() throws Exception {
    store.shutDown();
    harness.close();
  }

  @Test
  void commitsCloseTogetherWakeTheStreamsOnceAndTheStreamsGetEveryEvent() throws Exception {
    TrackingEventStream stream = store.openStream(null);
    AtomicInteger wakeUps = new AtomicInteger();
    stream.setOnAvailableCallback(wakeUps::incrementAndGet);

    long start = System.nanoTime();
    for (int i = 0; i < COMMITS; i++) {
      // Outside a unit of work each publish is its own commit, and calls afterCommit.
      store.publish(WriteModelHarness.firstStockReceived("SKU-" + i));
    }
    long windows = (System.nanoTime() - start) / 1_000_000 / COALESCE_MS + 2;
    Thread.sleep(500);

    // At most one per window the commits spanned (a few, unless the machine is very slow), and
    // fewer than one per commit in any case.
    assertThat(wakeUps.get()).isBetween(1, (int) Math.min(COMMITS - 1, windows));
    Set<String> seen = new HashSet<>();
    while (seen.size() < COMMITS && stream.hasNextAvailable(2, TimeUnit.SECONDS)) {
      seen.add(stream.nextAvailable().getIdentifier());
    }
    assertThat(seen).hasSize(COMMITS);
    stream.close();
  }
}
