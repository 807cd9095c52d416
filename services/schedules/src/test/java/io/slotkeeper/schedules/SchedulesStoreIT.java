package io.slotkeeper.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.testing.DatabaseHarness;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The jobs file applied as schedules, and a catalog following the read table, on PostgreSQL: what
 * the aggregate fixture cannot show (the projection, the polls, a table that fails).
 */
class SchedulesStoreIT {

  static final String FILE_A =
      "jobs:\n"
          + "  - {name: a, schedule: {every: PT1M}, handler: noop}\n"
          + "  - {name: b, schedule: {cron: '0 0 * * * *'}, zone: Europe/Berlin, handler: noop}\n";
  static final String FILE_B =
      "jobs:\n" + "  - {name: a, schedule: {every: PT5M}, handler: noop}\n";

  DatabaseHarness db;
  WriteModel writeModel;
  Vertx vertx;
  Pool pool;
  SlotkeeperMetrics metrics;

  @BeforeEach
  void start() {
    db = new DatabaseHarness("schedules_store");
    writeModel =
        db.closing(
            WriteModel.start(
                db.database(8, "schedules-it"),
                List.of(Schedules.module()),
                new WriteModel.Options("schedules-it", 2, true)));
    vertx = Vertx.vertx();
    pool = ReadPools.create(vertx, db.endpoint(), 4, "schedules-it-read");
    metrics = new SlotkeeperMetrics(new SimpleMeterRegistry());
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    db.close();
  }

  JobsFileSync.Result apply(String yaml) throws Exception {
    JobsFileSync sync = new JobsFileSync(writeModel.commands(), pool);
    JobsFile file = JobsFile.parse(yaml, "jobs.yaml");
    JobsFileSync.Result r = sync.apply(file).await(20, TimeUnit.SECONDS);
    // The read table follows the events.
    for (ScheduleSnapshot s : r.schedules()) {
      db.awaitLong(
          1,
          "SELECT count(*) FROM schedules WHERE name = '"
              + s.name()
              + "' AND version >= "
              + s.version());
    }
    return r;
  }

  long events() {
    return db.queryLong(
        "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier LIKE 'schedule:%'");
  }

  @Test
  void theFileAppliedTwiceChangesNothingAndAJobLeavingIsHandedToTheApi() throws Exception {
    assertThat(apply(FILE_A).applied()).isEqualTo(2);
    assertThat(events()).isEqualTo(2);
    JobsFileSync.Result again = apply(FILE_A);
    assertThat(again.applied()).isZero();
    assertThat(again.unchanged()).isEqualTo(2);
    assertThat(events()).isEqualTo(2);

    JobsFileSync.Result changed = apply(FILE_B);
    assertThat(changed.applied()).isEqualTo(1);
    assertThat(changed.released()).isEqualTo(1);
    assertThat(db.queryString("SELECT managed_by FROM schedules WHERE name = 'b'"))
        .isEqualTo("API");
    assertThat(
            db.queryString(
                "SELECT definition->'schedule'->>'every' FROM schedules WHERE name = 'a'"))
        .isEqualTo("PT5M");
    // Back to the first definition: applied again (the key includes the version).
    assertThat(apply(FILE_A).applied()).isEqualTo(2);
    assertThat(db.queryString("SELECT managed_by FROM schedules WHERE name = 'b'"))
        .isEqualTo("FILE");
    // A change raised the point catch-up may reach back to.
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM job_first_planned f JOIN schedules s ON s.name = f.job"
                    + " WHERE f.first_planned = s.effective_at AND s.name = 'a'"))
        .isEqualTo(1);
  }

  @Test
  void aPausedJobStaysPausedWhenItBecomesASchedule() throws Exception {
    TestInfra.execute(
        db.endpoint(),
        "INSERT INTO job_controls (job, paused, updated_at) VALUES ('a', true, now())");
    apply(FILE_A);
    assertThat(db.queryString("SELECT state FROM schedules WHERE name = 'a'")).isEqualTo("PAUSED");
    assertThat(db.queryString("SELECT state FROM schedules WHERE name = 'b'")).isEqualTo("ACTIVE");
  }

  @Test
  void aSeededCatalogIgnoresRowsOlderThanWhatItKnows() throws Exception {
    apply(FILE_A);
    JobsFileSync.Result changed =
        new JobsFileSync(writeModel.commands(), pool)
            .apply(JobsFile.parse(FILE_B, "jobs.yaml"))
            .await(20, TimeUnit.SECONDS);
    ProjectedScheduleCatalog catalog =
        new ProjectedScheduleCatalog(vertx, pool, metrics, Clock.systemUTC());
    catalog.seed(changed.schedules());
    catalog.start().await(10, TimeUnit.SECONDS);
    // Whether or not the table shows the change yet, the catalog runs the file's definition.
    assertThat(catalog.get("a").orElseThrow().schedule().toString()).contains("PT5M");
    catalog.close();
  }

  @Test
  void theCatalogFollowsTheTableAndReportsAndHealsAFailingPoll() throws Exception {
    apply(FILE_A);
    ProjectedScheduleCatalog catalog =
        new ProjectedScheduleCatalog(vertx, pool, metrics, Clock.systemUTC());
    catalog.start().await(10, TimeUnit.SECONDS);
    assertThat(catalog.all()).extracting(j -> j.name()).containsExactly("a", "b");
    List<String> announced = new java.util.concurrent.CopyOnWriteArrayList<>();
    catalog.onChange(announced::add);

    apply(FILE_B);
    await()
        .atMost(Duration.ofSeconds(1))
        .until(() -> catalog.get("a").orElseThrow().schedule().toString().contains("PT5M"));
    assertThat(announced).contains("a");

    // The table goes away: polls fail, are counted and reported; they heal when it is back.
    TestInfra.execute(db.endpoint(), "ALTER TABLE schedules RENAME TO schedules_away");
    await().atMost(Duration.ofSeconds(5)).until(() -> !catalog.health().upToDate());
    assertThat(catalog.health().lastError()).contains("schedules");
    assertThat(metrics.registry().get("slotkeeper.schedule.catalog.errors").counter().count())
        .isGreaterThan(0);
    assertThat(catalog.all()).hasSize(2);
    TestInfra.execute(db.endpoint(), "ALTER TABLE schedules_away RENAME TO schedules");
    await().atMost(Duration.ofSeconds(5)).until(() -> catalog.health().upToDate());
    catalog.close();
  }

  @Test
  void aFileOfSeveralChunksIsAppliedWholeAndOnce() throws Exception {
    int jobs = 2 * JobsFileSync.CHUNK + 100;
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (int i = 0; i < jobs; i++) {
      yaml.append("  - {name: many-")
          .append(i)
          .append(", schedule: {every: PT1M}, handler: noop}\n");
    }
    JobsFile file = JobsFile.parse(yaml.toString(), "jobs.yaml");
    JobsFileSync sync = new JobsFileSync(writeModel.commands(), pool);
    JobsFileSync.Result first = sync.apply(file).await(60, TimeUnit.SECONDS);
    assertThat(first.applied()).isEqualTo(jobs);
    assertThat(first.schedules()).hasSize(jobs);
    assertThat(events()).isEqualTo(jobs);
    db.awaitLong(jobs, "SELECT count(*) FROM schedules WHERE name LIKE 'many-%'");
    JobsFileSync.Result again = sync.apply(file).await(60, TimeUnit.SECONDS);
    assertThat(again.unchanged()).isEqualTo(jobs);
    assertThat(events()).isEqualTo(jobs);
  }

  @Test
  void aCatalogWhoseFirstReadFailsStartsOnceTheTableAnswers() throws Exception {
    apply(FILE_A);
    TestInfra.execute(db.endpoint(), "ALTER TABLE schedules RENAME TO schedules_away");
    ProjectedScheduleCatalog catalog =
        new ProjectedScheduleCatalog(vertx, pool, metrics, Clock.systemUTC());
    var started = catalog.start();
    // It keeps trying, and says why, instead of failing the start at the first error.
    await().atMost(Duration.ofSeconds(5)).until(() -> catalog.health().failuresInARow() >= 2);
    assertThat(started.isComplete()).isFalse();
    assertThat(catalog.health().lastError()).contains("schedules");
    TestInfra.execute(db.endpoint(), "ALTER TABLE schedules_away RENAME TO schedules");
    started.await(5, TimeUnit.SECONDS);
    assertThat(catalog.all()).extracting(j -> j.name()).containsExactly("a", "b");
    catalog.close();
  }
}
