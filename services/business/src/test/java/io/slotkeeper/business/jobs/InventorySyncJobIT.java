package io.slotkeeper.business.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.testing.InjectedFaults;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** inventory-sync on PostgreSQL: each count of the feed table is applied once. */
class InventorySyncJobIT {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  private JobsHarness harness;
  private InventorySyncJob job;

  @BeforeEach
  void setUp() {
    harness = new JobsHarness("job-inventory");
    job = new InventorySyncJob(harness.model().commands(), harness.dataSource());
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private Map<String, Long> runAt(Instant nominal) {
    return job.run(JobsHarness.slot(InventorySyncJob.NAME, nominal, Map.of()));
  }

  private void feed(String sku, long onHand, String asOf) {
    harness.execute(
        "INSERT INTO inventory_feed (sku, on_hand, as_of) VALUES ('"
            + sku
            + "', "
            + onHand
            + ", '"
            + asOf
            + "') ON CONFLICT (sku) DO UPDATE SET on_hand = EXCLUDED.on_hand,"
            + " as_of = EXCLUDED.as_of, updated_at = now()");
  }

  private static Map<String, Long> counts(long applied, long ignored, long failed) {
    return Map.of("applied", applied, "ignored", ignored, "failed", failed);
  }

  @Test
  void appliesEachCountOnceAndIgnoresStaleOnes() {
    feed("A", 40, "2026-03-01T09:00:00Z");
    feed("B", 5, "2026-03-01T09:00:00Z");

    assertThat(runAt(T0)).isEqualTo(counts(2, 0, 0));
    long events = harness.allEvents();
    assertThat(harness.events("StockCounted")).isEqualTo(2);

    // The same slot again (a retry): duplicates, nothing new.
    assertThat(runAt(T0)).isEqualTo(counts(0, 2, 0));
    // The next slot re-reads unchanged rows: counts that are not newer are ignored.
    assertThat(runAt(T0.plusSeconds(60))).isEqualTo(counts(0, 2, 0));
    assertThat(harness.allEvents()).isEqualTo(events);

    feed("A", 10, "2026-03-01T08:00:00Z"); // older than the applied count
    feed("B", 7, "2026-03-01T09:30:00Z"); // newer
    assertThat(runAt(T0.plusSeconds(120))).isEqualTo(counts(1, 1, 0));
    harness.awaitLong(40, "SELECT on_hand FROM inventory WHERE sku = 'A'");
    harness.awaitLong(7, "SELECT on_hand FROM inventory WHERE sku = 'B'");
    // Each change names the slot it came from, as the ledger knows it.
    harness.awaitLong(
        0, "SELECT count(*) FROM inventory_log WHERE sku IN ('A', 'B') AND slot IS NULL");
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM inventory_log WHERE slot = '"
                    + io.slotkeeper.events.DeterministicIds.forSlot(InventorySyncJob.NAME, T0)
                    + "'"))
        .isEqualTo(2);
    assertThat(harness.events("StockCounted")).isEqualTo(3);
  }

  @Test
  void aCountTooLargeForTheCommandFailsAloneWithoutStoppingTheOthers() {
    feed("A", 3_000_000_000L, "2026-03-01T09:00:00Z");
    feed("B", 5, "2026-03-01T09:00:00Z");

    assertThat(runAt(T0)).isEqualTo(counts(1, 0, 1));
    harness.awaitLong(5, "SELECT on_hand FROM inventory WHERE sku = 'B'");
  }

  @Test
  void aFeedLongerThanTheCountsInFlightAppliesEveryRowOnce() {
    int skus = InventorySyncJob.IN_FLIGHT * 5 + 3;
    for (int i = 0; i < skus; i++) {
      feed(String.format("S%03d", i), i, "2026-03-01T09:00:00Z");
    }
    feed("TOO-BIG", 3_000_000_000L, "2026-03-01T09:00:00Z");

    assertThat(runAt(T0)).isEqualTo(counts(skus, 0, 1));
    assertThat(harness.events("StockCounted")).isEqualTo(skus);
    // The slot's retry: every count is a duplicate, nothing applied twice.
    assertThat(runAt(T0)).isEqualTo(counts(0, skus, 1));
    assertThat(harness.events("StockCounted")).isEqualTo(skus);
    harness.awaitLong(
        skus - 1,
        "SELECT on_hand FROM inventory WHERE sku = '" + String.format("S%03d", skus - 1) + "'");
  }

  @Test
  void aFailureMidFeedStopsTheSendsFailsTheAttemptAndItsRetryAppliesTheRestOnce() {
    int skus = InventorySyncJob.IN_FLIGHT * 5 + 3;
    for (int i = 0; i < skus; i++) {
      feed(String.format("S%03d", i), i, "2026-03-01T09:00:00Z");
    }
    // A real fault, not a refusal: PostgreSQL refuses the events of one SKU's stream.
    int faulty = 40;
    InjectedFaults.refuseEventsOf(StreamIds.inventory(String.format("S%03d", faulty)))
        .forEach(harness::execute);

    assertThatThrownBy(() -> runAt(T0)).hasMessageContaining("injected fault");
    long applied = harness.events("StockCounted");
    // The failure stopped the sends: nothing after the counts that were in flight with it.
    assertThat(applied).isBetween(1L, (long) faulty + InventorySyncJob.IN_FLIGHT - 1);
    // And the attempt ended only when every count it sent had settled: none lands later.
    harness.execute("SELECT pg_sleep(0.5)");
    assertThat(harness.events("StockCounted")).isEqualTo(applied);

    // The fault clears; the slot's retry (same command IDs) applies the rest, each once.
    harness.execute(InjectedFaults.CLEAR);
    assertThat(runAt(T0)).isEqualTo(counts(skus - applied, applied, 0));
    assertThat(harness.events("StockCounted")).isEqualTo(skus);
  }
}
