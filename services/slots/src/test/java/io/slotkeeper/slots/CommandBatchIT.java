package io.slotkeeper.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.SameTransactionWrite;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.events.slots.SlotCommand.MissSlot;
import io.slotkeeper.events.slots.SlotStatus;
import io.slotkeeper.platform.db.JdbcTransactionManager;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The timers' slot commands go through {@link CommandBatcher}: many aggregates' commands in one
 * transaction when they queue up, and, when any entry of a batch fails, each command on its own
 * with the answer it would have had alone.
 */
class CommandBatchIT {

  static final Instant BASE = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(3_600);
  private WriteModelHarness harness;
  private CommandBatcher batcher;
  private WriteModel model;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("batch");
    model = harness.start("a", true);
    batcher = model.batcher();
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private static FireSlot fire(String job, int slot, String instance, long token) {
    return new FireSlot(
        job + "-fire-" + slot + "-" + instance + "-" + token,
        job + "-slot-" + slot,
        job,
        BASE.plusSeconds(slot),
        instance,
        token,
        1,
        false);
  }

  private long transactionsOf(String commandIdPattern) {
    return harness.queryLong(
        "SELECT count(DISTINCT xmin::text) FROM command_ledger WHERE command_id LIKE '"
            + commandIdPattern
            + "'");
  }

  @Test
  void commandsThatQueueUpShareTransactions() {
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> sent = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      sent.add(batcher.sendCreating(fire("shared", i, "a", 1)));
    }
    for (int i = 60; i < 80; i++) {
      sent.add(
          batcher.sendCreating(
              new MissSlot(
                  "shared-miss-" + i, "shared-slot-" + i, "shared", BASE.plusSeconds(i), "test")));
    }
    sent.forEach(f -> assertThat(f.join().result().accepted()).isTrue());
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM command_ledger WHERE command_id LIKE 'shared-%'"))
        .isEqualTo(80);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier LIKE"
                    + " 'slot:shared-slot-%'"))
        .isEqualTo(80);
    // Two batches go out alone (nothing queued yet), the rest queue behind them.
    assertThat(transactionsOf("shared-%")).isLessThan(20);
    // Each event carries its own command's ID, not the batch's.
    assertThat(
            harness.queryString(
                "SELECT convert_from(meta_data, 'UTF8') FROM domain_event_entry WHERE"
                    + " aggregate_identifier = 'slot:shared-slot-42'"))
        .contains("shared-fire-42-a-1");
    // The event rows of a batch commit in its transaction too.
    assertThat(
            harness.queryLong(
                "SELECT count(DISTINCT xmin::text) FROM domain_event_entry WHERE"
                    + " aggregate_identifier LIKE 'slot:shared-slot-%'"))
        .isEqualTo(transactionsOf("shared-%"));
    // Within a batch, the events' positions follow the order the commands were sent in (the
    // append inserts them WITH ORDINALITY ... ORDER BY).
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM (SELECT n, lag(n) OVER (PARTITION BY tx ORDER BY"
                    + " global_index) AS prev FROM (SELECT global_index, xmin::text AS tx,"
                    + " split_part(aggregate_identifier, '-', 3)::int AS n FROM domain_event_entry"
                    + " WHERE aggregate_identifier LIKE 'slot:shared-slot-%') e) t"
                    + " WHERE prev > n"))
        .isZero();
  }

  @Test
  void commandsOfOneAggregateApplyInTheOrderTheyWereSent() {
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> others = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      others.add(batcher.sendCreating(fire("order", i, "a", 1)));
    }
    // Sent before the fire is applied: it must wait for it, not race it.
    CompletableFuture<CommandOutcome<SlotSnapshot>> fire =
        batcher.sendCreating(fire("order", 0, "a", 1));
    CompletableFuture<CommandOutcome<SlotSnapshot>> complete =
        batcher.send(new CompleteSlot("order-complete-0", "order-slot-0", "a", 1, Map.of(), 1));
    for (int i = 11; i <= 20; i++) {
      others.add(batcher.sendCreating(fire("order", i, "a", 1)));
    }
    assertThat(fire.join().result().accepted()).isTrue();
    assertThat(complete.join().result().status()).isEqualTo(SlotStatus.COMPLETED);
    others.forEach(f -> assertThat(f.join().result().accepted()).isTrue());
  }

  @Test
  void anEntryItsAggregateRefusesIsAnsweredAloneAndTheOthersStayBatched() {
    assertThat(
            batcher.<SlotSnapshot>sendCreating(fire("mixed", 0, "a", 1)).join().result().accepted())
        .isTrue();
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> fires = new ArrayList<>();
    for (int i = 100; i < 140; i++) {
      fires.add(batcher.sendCreating(fire("mixed", i, "a", 1)));
    }
    // A completion under the wrong token, queued among the fires: refused by the slot.
    CompletableFuture<CommandOutcome<SlotSnapshot>> wrongToken =
        batcher.send(new CompleteSlot("mixed-complete-0-9", "mixed-slot-0", "a", 9, Map.of(), 1));
    for (int i = 140; i < 180; i++) {
      fires.add(batcher.sendCreating(fire("mixed", i, "a", 1)));
    }

    fires.forEach(f -> assertThat(f.join().result().accepted()).isTrue());
    assertThatThrownBy(wrongToken::join)
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalTransitionException.class);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM command_ledger WHERE command_id LIKE 'mixed-fire-1__-%'"))
        .isEqualTo(80);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM command_ledger WHERE command_id = 'mixed-complete-0-9'"))
        .isZero();
    // The refused completion's batch ran again without it, still as a batch.
    assertThat(transactionsOf("mixed-fire-1__-%")).isLessThan(20);
  }

  @Test
  void aFirstFireOfASlotThatExistsFailsItsBatchAndEveryCommandGetsItsOwnAnswer() {
    assertThat(
            batcher.<SlotSnapshot>sendCreating(fire("taken", 0, "a", 1)).join().result().accepted())
        .isTrue();
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> fires = new ArrayList<>();
    for (int i = 100; i < 120; i++) {
      fires.add(batcher.sendCreating(fire("taken", i, "a", 1)));
    }
    // Another instance's first fire of slot 0: a creation that finds the slot when its batch
    // commits, then, alone, the regular fire, which the slot refuses.
    CompletableFuture<CommandOutcome<SlotSnapshot>> takeover =
        batcher.sendCreating(fire("taken", 0, "b", 1));
    for (int i = 120; i < 140; i++) {
      fires.add(batcher.sendCreating(fire("taken", i, "a", 1)));
    }

    fires.forEach(f -> assertThat(f.join().result().accepted()).isTrue());
    CommandOutcome<SlotSnapshot> refused = takeover.join();
    assertThat(refused.duplicate()).isFalse();
    assertThat(refused.result().accepted()).isFalse();
    assertThat(refused.result().instanceId()).isEqualTo("a");
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM command_ledger WHERE command_id LIKE 'taken-fire-%'"))
        .isEqualTo(1 + 40 + 1);
    // Slot 0: one SlotFired, and the refusal of b's fire.
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier ="
                    + " 'slot:taken-slot-0' AND payload_type LIKE '%SlotFired'"))
        .isEqualTo(1);
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier ="
                    + " 'slot:taken-slot-0' AND payload_type LIKE '%SlotFireRejected'"))
        .isEqualTo(1);
  }

  @Test
  void aCommandSentAloneAfterItsBatchFailedStillComesBeforeItsAggregatesLaterCommands() {
    assertThat(
            batcher.<SlotSnapshot>sendCreating(fire("late", 0, "a", 1)).join().result().accepted())
        .isTrue();
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> fires = new ArrayList<>();
    for (int i = 100; i < 120; i++) {
      fires.add(batcher.sendCreating(fire("late", i, "a", 1)));
    }
    // Fails its batch when it commits, then goes alone (creation, back-off, regular fire)...
    CompletableFuture<CommandOutcome<SlotSnapshot>> takeover =
        batcher.sendCreating(fire("late", 0, "b", 1));
    // ... and the slot's completion, sent after it, must not overtake it meanwhile.
    CompletableFuture<CommandOutcome<SlotSnapshot>> complete =
        batcher.send(new CompleteSlot("late-complete-0", "late-slot-0", "a", 1, Map.of(), 1));
    for (int i = 120; i < 140; i++) {
      fires.add(batcher.sendCreating(fire("late", i, "a", 1)));
    }

    fires.forEach(f -> assertThat(f.join().result().accepted()).isTrue());
    CommandOutcome<SlotSnapshot> refused = takeover.join();
    assertThat(refused.result().accepted()).isFalse();
    // Refused by a slot still running, not by a completed one.
    assertThat(refused.result().status()).isEqualTo(SlotStatus.FIRED);
    assertThat(complete.join().result().status()).isEqualTo(SlotStatus.COMPLETED);
  }

  @Test
  void aStaleTokenInABatchIsRefusedAloneAndTheOtherFiresApply() {
    // The job's fence is raised to token 5 by a fire under it.
    assertThat(
            batcher
                .<SlotSnapshot>sendCreating(fire("fenced", 0, "a", 5))
                .join()
                .result()
                .accepted())
        .isTrue();
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> current = new ArrayList<>();
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> stale = new ArrayList<>();
    for (int i = 1; i <= 30; i++) {
      current.add(batcher.sendCreating(fire("fenced", i, "a", 5)));
      if (i % 10 == 0) {
        stale.add(batcher.sendCreating(fire("fenced", 100 + i, "old", 3)));
      }
    }
    current.forEach(f -> assertThat(f.join().result().accepted()).isTrue());
    stale.forEach(
        f ->
            assertThatThrownBy(f::join)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(StaleFencingTokenException.class));
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier LIKE"
                    + " 'slot:fenced-slot-1__'"))
        .isZero();
    assertThat(harness.queryLong("SELECT highest_token FROM job_fences WHERE job = 'fenced'"))
        .isEqualTo(5);
  }

  @Test
  void theSameCommandTwiceIsAppliedOnceAndTheCopyIsADuplicate() {
    FireSlot fire = fire("twice", 1, "a", 1);
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> sent = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      sent.add(batcher.sendCreating(fire));
    }
    List<CommandOutcome<SlotSnapshot>> outcomes =
        sent.stream().map(CompletableFuture::join).toList();
    assertThat(outcomes).filteredOn(o -> !o.duplicate()).hasSize(1);
    assertThat(outcomes).filteredOn(CommandOutcome::duplicate).hasSize(3);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.result().accepted()).isTrue());
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier ="
                    + " 'slot:twice-slot-1'"))
        .isEqualTo(1);
  }

  @Test
  void aSameTransactionWriteCommitsExactlyWithItsCommand() throws Exception {
    try (Connection c =
            DriverManager.getConnection(
                harness.endpoint().jdbcUrl(),
                harness.endpoint().user(),
                harness.endpoint().password());
        Statement st = c.createStatement()) {
      // No key: a write that ran twice would show as two rows.
      st.execute("CREATE TABLE written (command_id TEXT NOT NULL, duplicate BOOLEAN NOT NULL)");
    }
    // Only the calling thread's transaction connection is used (the binding is per thread).
    JdbcTransactionManager current = new JdbcTransactionManager(null);
    java.util.function.Function<String, SameTransactionWrite> recording =
        id ->
            outcome -> {
              try (Connection c = current.getConnection();
                  PreparedStatement ps = c.prepareStatement("INSERT INTO written VALUES (?, ?)")) {
                ps.setString(1, id);
                ps.setBoolean(2, outcome.duplicate());
                ps.executeUpdate();
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            };
    assertThat(batcher.<SlotSnapshot>sendCreating(fire("tx", 0, "a", 1)).join().result().accepted())
        .isTrue();
    List<CompletableFuture<CommandOutcome<SlotSnapshot>>> fires = new ArrayList<>();
    for (int i = 1; i <= 40; i++) {
      FireSlot fire = fire("tx", i, "a", 1);
      fires.add(batcher.send(fire, recording.apply(fire.commandId())));
    }
    // Refused by its slot: its batch rolls back (with the writes of the fires in it), it is
    // answered alone, and the fires apply again with their writes.
    CompletableFuture<CommandOutcome<SlotSnapshot>> refused =
        batcher.send(
            new CompleteSlot("tx-complete-0-9", "tx-slot-0", "a", 9, Map.of(), 1),
            recording.apply("tx-complete-0-9"));
    FireSlot again = fire("tx", 1, "a", 1);
    CompletableFuture<CommandOutcome<SlotSnapshot>> duplicate =
        batcher.send(again, recording.apply("copy-of-" + again.commandId()));
    fires.forEach(f -> assertThat(f.join().duplicate()).isFalse());
    assertThatThrownBy(refused::join).isInstanceOf(CompletionException.class);
    assertThat(duplicate.join().duplicate()).isTrue();

    assertThat(harness.queryLong("SELECT count(*) FROM written")).isEqualTo(40);
    assertThat(harness.queryLong("SELECT count(DISTINCT command_id) FROM written")).isEqualTo(40);
    assertThat(harness.queryLong("SELECT count(*) FROM written WHERE duplicate")).isZero();
    // Each write committed in the transaction of its own command's ledger row.
    assertThat(
            harness.queryLong(
                "SELECT count(*) FROM written w JOIN command_ledger l USING (command_id)"
                    + " WHERE w.xmin::text = l.xmin::text"))
        .isEqualTo(40);
  }
}
