package io.slotkeeper.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.platform.config.PostgresEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Fencing and duplicate fires against the real store. */
class SlotLedgerIT {

  static final Instant NOMINAL = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(5);
  private WriteModelHarness harness;
  private WriteModel model;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("slots");
    model = harness.start("a", true);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private CommandOutcome<SlotSnapshot> fire(String slot, String instance, long token, int attempt) {
    return fireAsync(slot, instance, token, attempt).join();
  }

  private CompletableFuture<CommandOutcome<SlotSnapshot>> fireAsync(
      String slot, String instance, long token, int attempt) {
    return model
        .commands()
        .send(
            new FireSlot(
                "fire-" + slot + "-" + attempt + "-" + token,
                slot,
                "job-1",
                NOMINAL,
                instance,
                token,
                attempt,
                false));
  }

  @Test
  void firesOfTheCurrentHolderDoNotWaitForEachOtherButANewerTokenWaitsAndWins() throws Exception {
    assertThat(fire("slot-10", "a", 5, 1).result().accepted()).isTrue();
    PostgresEndpoint pg = harness.endpoint();
    try (Connection inFlight =
        DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password())) {
      // An uncommitted fire of the current holder (token 5): it holds the row lock of its check.
      inFlight.setAutoCommit(false);
      inFlight
          .createStatement()
          .execute("SELECT highest_token FROM job_fences WHERE job = 'job-1' FOR SHARE");
      // Another fire under the same token is not held up by it (a catch-up's fires overlap) ...
      assertThat(fireAsync("slot-11", "a", 5, 1).get(10, TimeUnit.SECONDS).result().accepted())
          .isTrue();
      // ... but a newer holder's first fire waits until the older fires have committed.
      CompletableFuture<CommandOutcome<SlotSnapshot>> newer = fireAsync("slot-12", "b", 6, 1);
      Thread.sleep(500);
      assertThat(newer).isNotDone();
      inFlight.commit();
      assertThat(newer.get(10, TimeUnit.SECONDS).result().accepted()).isTrue();
    }
    // From then on the older holder is refused.
    assertThatThrownBy(() -> fire("slot-13", "a", 5, 1))
        .hasCauseInstanceOf(StaleFencingTokenException.class);
    assertThat(harness.queryLong("SELECT highest_token FROM job_fences WHERE job = 'job-1'"))
        .isEqualTo(6);
  }

  @Test
  void manyConcurrentFiresOfOneHolderAreAllAccepted() {
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> fires = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      fires.add(fireAsync("slot-c" + i, "a", 9, 1));
    }
    assertThat(fires).allSatisfy(f -> assertThat(f.join().result().accepted()).isTrue());
    assertThat(harness.queryLong("SELECT highest_token FROM job_fences WHERE job = 'job-1'"))
        .isEqualTo(9);
  }

  @Test
  void aFireWithAStaleTokenIsRefusedAfterANewerHolderFired() {
    assertThat(fire("slot-1", "new-holder", 7, 1).result().accepted()).isTrue();
    // The old holder, paused past its lease, wakes up and fires the next slot with token 6.
    assertThatThrownBy(() -> fire("slot-2", "old-holder", 6, 1))
        .hasCauseInstanceOf(StaleFencingTokenException.class);
    assertThat(harness.queryLong("SELECT highest_token FROM job_fences WHERE job = 'job-1'"))
        .isEqualTo(7);
    // Counted by stream ID: slot-1's fire is there, slot-2 has none.
    String byStream = "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = '";
    assertThat(harness.queryLong(byStream + StreamIds.slot("slot-1") + "'")).isEqualTo(1);
    assertThat(harness.queryLong(byStream + StreamIds.slot("slot-2") + "'")).isZero();
  }

  @Test
  void theSameFireTwiceIsADuplicateAndAnotherInstanceIsRefused() {
    CommandOutcome<SlotSnapshot> first = fire("slot-3", "a", 3, 1);
    CommandOutcome<SlotSnapshot> again = fire("slot-3", "a", 3, 1);
    assertThat(first.duplicate()).isFalse();
    assertThat(again.duplicate()).isTrue();
    assertThat(again.result().instanceId()).isEqualTo("a");
    model
        .commands()
        .send(new CompleteSlot("done-3", "slot-3", "a", 3, Map.of("rows", 2L), 12))
        .join();
    CommandOutcome<SlotSnapshot> late =
        model
            .commands()
            .<SlotSnapshot>send(
                new FireSlot("fire-slot-3-b", "slot-3", "job-1", NOMINAL, "b", 4, 1, false))
            .join();
    assertThat(late.result().accepted()).isFalse();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "COMPLETED 1 {\"rows\": 2}"
                    .equals(
                        harness.queryString(
                            "SELECT status || ' ' || duplicates_rejected || ' ' || counts::text FROM job_runs WHERE slot_id = 'slot-3'")));
    // The ledger stamps the fire time: lag runs from the nominal instant to it.
    assertThat(harness.queryLong("SELECT lag_ms FROM job_runs WHERE slot_id = 'slot-3'"))
        .isGreaterThanOrEqualTo(5_000);
  }
}
