package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cursor loads in batches against a real ledger: a schedule with more records than a batch's shared
 * scan is scanned again on its own, and its walk runs on a worker; schedules of few records are
 * walked on the event loop. Both find the oldest hole.
 */
class LedgerCursorLoadIT {

  private static final Instant START =
      Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(7_200);

  private final PostgresEndpoint db = TestInfra.freshDatabase("cursor-loads");
  private final Vertx vertx = Vertx.vertx();
  private Database database;
  private LedgerQueries ledger;

  @BeforeEach
  void setUp() {
    database = Database.open(db, 2, "cursor-loads");
    ledger = new LedgerQueries(ReadPools.create(vertx, db, 2, "cursor-loads"));
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
    database.close();
  }

  /** {@code count} one-second slots of {@code job} after START, without the one at {@code hole}. */
  private void records(String job, int count, int hole) {
    TestInfra.execute(
        db,
        "INSERT INTO job_first_planned (job, first_planned, recorded_at) VALUES ('"
            + job
            + "', '"
            + START
            + "', now())");
    TestInfra.execute(
        db,
        "INSERT INTO job_runs (slot_id, job, nominal, status, attempts, updated_at, last_position)"
            + " SELECT '"
            + job
            + "-' || g, '"
            + job
            + "', '"
            + START
            + "'::timestamptz + g * interval '1 second', 'COMPLETED', 1, now(), g"
            + " FROM generate_series(1, "
            + count
            + ") g WHERE g <> "
            + hole);
  }

  private static JobDefinition everySecond(String name) {
    return JobsFile.parse(
            "jobs:\n  - name: "
                + name
                + "\n    handler: noop\n    schedule: { every: PT1S }\n"
                + "    catchUp: { policy: ALL, window: PT3H }\n",
            "test-jobs")
        .jobs()
        .get(0);
  }

  private void load(LedgerCursor... cursors) throws Exception {
    LedgerCursor.loadAll(vertx, ledger, SlotClock.system(), List.of(cursors))
        .await(30, TimeUnit.SECONDS);
  }

  @Test
  void aScheduleWithMoreRecordsThanTheSharedScanResumesAtItsOldestHole() throws Exception {
    int count = LedgerCursor.BATCH_SCAN_LIMIT + 1_000;
    int hole = count - 500;
    records("long", count, hole);
    records("short", 10, 5);
    LedgerCursor longOne = new LedgerCursor(everySecond("long"));
    LedgerCursor shortOne = new LedgerCursor(everySecond("short"));

    load(longOne, shortOne); // the long one walked on a worker, the short one on the event loop

    assertThat(longOne.loaded()).isTrue();
    assertThat(longOne.position()).isEqualTo(START.plusSeconds(hole - 1));
    // The records after the hole are known, so that they are not fired again.
    assertThat(longOne.alreadyRecorded(START.plusSeconds(hole + 1))).isTrue();
    assertThat(longOne.alreadyRecorded(START.plusSeconds(count))).isTrue();
    assertThat(shortOne.position()).isEqualTo(START.plusSeconds(4));
  }

  @Test
  void aBatchOfFewRecordsResumesAtItsOldestHole() throws Exception {
    records("a", 10, 5);
    records("b", 10, 11); // no hole: resumes after its last record
    LedgerCursor a = new LedgerCursor(everySecond("a"));
    LedgerCursor b = new LedgerCursor(everySecond("b"));

    load(a, b); // both walked on the event loop

    assertThat(a.position()).isEqualTo(START.plusSeconds(4));
    assertThat(a.alreadyRecorded(START.plusSeconds(6))).isTrue();
    assertThat(b.position()).isEqualTo(START.plusSeconds(10));
  }
}
