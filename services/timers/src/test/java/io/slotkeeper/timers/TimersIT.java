package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.Business;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotLedger;
import io.slotkeeper.testing.InjectedFaults;
import io.slotkeeper.testing.TestInfra;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Timers on several instances against real PostgreSQL and Redis. */
class TimersIT {

  private final List<TimerInstance> instances = new ArrayList<>();
  private final PostgresEndpoint db = TestInfra.freshDatabase("timers");
  private final String leasePrefix = "slotkeeper-test:" + UUID.randomUUID() + ":";

  @AfterEach
  void tearDown() throws Exception {
    for (TimerInstance i : instances) {
      i.close();
    }
  }

  private static JobsFile job(String name, String catchUp, String leaseTtl) {
    return JobsFile.parse(jobYaml(name, catchUp, leaseTtl), "test-jobs");
  }

  private static String jobYaml(String name, String catchUp, String leaseTtl) {
    return "jobs:\n"
        + "  - name: "
        + name
        + "\n"
        + "    schedule: { every: PT1S }\n"
        + "    catchUp: { policy: "
        + catchUp
        + ", window: PT1M }\n"
        + "    overlap: ALLOW\n"
        + "    leaseTtl: "
        + leaseTtl
        + "\n"
        + "    retry: { maxAttempts: 3, initialBackoff: PT0.2S }\n";
  }

  /** A job whose one effect per slot is a stock receipt under the slot's command ID. */
  private static Function<WriteModel, Map<String, JobHandler>> receiving(String job) {
    return model ->
        Map.of(
            job,
            run -> {
              model
                  .commands()
                  .send(new ReceiveStock(run.commandId("effect"), job, 1, "tick " + run.nominal()))
                  .join();
              return Map.of("effects", 1L);
            });
  }

  private TimerInstance start(
      String id, JobsFile jobs, Function<WriteModel, Map<String, JobHandler>> h) throws Exception {
    TimerInstance i = new TimerInstance(id, db, leasePrefix, jobs, h);
    instances.add(i);
    return i;
  }

  private long count(String sql) {
    return TestInfra.queryLong(db, sql);
  }

  @Test
  void threeInstancesFireEverySlotOnceWithOneEffectEach() throws Exception {
    String job = "tick";
    JobsFile jobs = job(job, "ALL", "PT2S");
    start("instance-0", jobs, receiving(job));
    // From after the first instance is up: a new job's timer plans from its start, and a start
    // slowed by a busy machine must not put slots before it in the window.
    Instant begin = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
    for (int i = 1; i < 3; i++) {
      start("instance-" + i, jobs, receiving(job));
    }
    // The instances share the partitions: the job's partition may move while they settle (a
    // hand-over takes up to a lease upkeep period and a cursor load).
    int partitions = TimerInstance.SETTINGS.partitions();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                instances.stream()
                        .allMatch(
                            i ->
                                i.timers.partitions().orElseThrow().held().size()
                                    <= (partitions + 2) / 3)
                    && instances.stream()
                            .mapToInt(i -> i.timers.partitions().orElseThrow().held().size())
                            .sum()
                        == partitions);
    Instant settled = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    Thread.sleep(30_000);
    Instant end = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(2);
    for (TimerInstance i : instances) {
      i.stopTimers();
    }
    long expected = Duration.between(begin, end).toSeconds() + 1;
    String window =
        " WHERE job = '" + job + "' AND nominal BETWEEN '" + begin + "' AND '" + end + "'";
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("SELECT count(*) FROM job_runs" + window + " AND status = 'COMPLETED'")
                    == expected);
    assertThat(count("SELECT count(*) FROM job_runs" + window)).isEqualTo(expected);
    // Effects, counted in the store (not a projection): one per slot of the window, and never
    // two for one slot in the whole run. (A slot still running when the instances stopped may
    // have its effect without its completion; that is why the window, not the run, is compared.)
    String effects =
        " FROM domain_event_entry WHERE aggregate_identifier = '"
            + StreamIds.inventory(job)
            + "' AND payload_type LIKE '%StockReceived'";
    String reason = "convert_from(payload, 'UTF8')::jsonb->>'reason'";
    long windowEffects =
        count(
            "SELECT count(*)"
                + effects
                + " AND "
                + reason
                + " IN (SELECT 'tick ' || to_char(nominal AT TIME ZONE 'UTC',"
                + " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM job_runs"
                + window
                + ")");
    assertThat(windowEffects).isEqualTo(expected);
    assertThat(count("SELECT count(*)" + effects))
        .isEqualTo(count("SELECT count(DISTINCT " + reason + ")" + effects));
    assertThat(count("SELECT count(*) FROM job_runs WHERE job = '" + job + "' AND attempts > 1"))
        .isZero();
    // Lag from the nominal instant stays small once the partitions are shared out.
    long lag =
        count("SELECT max(lag_ms) FROM job_runs" + window + " AND nominal >= '" + settled + "'");
    System.out.printf(
        "lag after settling: max %d ms; over the whole window: max %d ms%n",
        lag, count("SELECT max(lag_ms) FROM job_runs" + window));
    assertThat(lag).isLessThan(1_000);
  }

  @Test
  void aSlotWhoseInstanceDiedIsFinishedByAnother() throws Exception {
    String job = "hang";
    JobsFile jobs = job(job, "LATEST", "PT1S");
    CountDownLatch never = new CountDownLatch(1);
    TimerInstance first =
        start(
            "doomed",
            jobs,
            model ->
                Map.of(
                    job,
                    run -> {
                      never.await(); // the instance dies mid-slot
                      return Map.of();
                    }));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count("SELECT count(*) FROM job_runs WHERE job = 'hang' AND status = 'FIRED'")
                    >= 1);
    String stuckSlot =
        TestInfra.queryString(
            db,
            "SELECT slot_id FROM job_runs WHERE job = 'hang' AND status = 'FIRED' ORDER BY nominal LIMIT 1");
    // Kill it: its write side goes first, so it cannot even record a failure.
    first.writeModel.close();
    first.stopTimers();
    start("survivor", jobs, receiving(job));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                "COMPLETED"
                    .equals(
                        TestInfra.queryString(
                            db,
                            "SELECT status FROM job_runs WHERE slot_id = '" + stuckSlot + "'")));
    assertThat(
            TestInfra.queryString(
                db, "SELECT instance_id FROM job_runs WHERE slot_id = '" + stuckSlot + "'"))
        .isEqualTo("survivor");
    assertThat(count("SELECT attempts FROM job_runs WHERE slot_id = '" + stuckSlot + "'"))
        .isGreaterThanOrEqualTo(2);
    never.countDown();
  }

  /** The ledger knows one slot from before the downtime, for each job. */
  private void seedLastSlot(Instant lastRun, List<String> jobs) throws Exception {
    List<Instant> slots = List.of(lastRun);
    seedSlots(slots, jobs);
  }

  /** Records each slot of each job as MISSED, as a previous holder would have. */
  private void seedSlots(List<Instant> slots, List<String> jobs) throws Exception {
    try (Database d = Database.open(db, 2, "seed")) {
      WriteModel seed =
          WriteModel.start(
              d,
              List.of(Business.module(), SlotLedger.module()),
              new WriteModel.Options("seed", 2, true));
      for (String job : jobs) {
        for (Instant slot : slots) {
          seed.commands()
              .send(
                  new io.slotkeeper.events.slots.SlotCommand.MissSlot(
                      "seed-" + job + "-" + slot.getEpochSecond(),
                      io.slotkeeper.events.DeterministicIds.forSlot(job, slot),
                      job,
                      slot,
                      "before downtime"))
              .join();
        }
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> count("SELECT count(*) FROM job_runs") == (long) jobs.size() * slots.size());
      seed.close();
    }
  }

  @Test
  void aSlotThatAPreviousHolderNeverRecordedIsPlannedAgain() throws Exception {
    // The previous holder recorded -4, -3, -1 and 0 but its fire of -2 failed (e.g. under a lease
    // it had lost): the next holder fills the hole, and sends nothing for the recorded slots.
    Instant last = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(5);
    Instant hole = last.minusSeconds(2);
    seedSlots(
        List.of(last.minusSeconds(4), last.minusSeconds(3), last.minusSeconds(1), last),
        List.of("holey-job"));
    start("holey", job("holey-job", "ALL", "PT2S"), receiving("holey-job"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM job_runs WHERE job = 'holey-job' AND status ="
                            + " 'COMPLETED' AND nominal = '"
                            + hole
                            + "'")
                    == 1);
    assertThat(
            count(
                "SELECT count(*) FROM job_runs WHERE job = 'holey-job' AND status = 'MISSED'"
                    + " AND duplicates_rejected = 0 AND nominal <= '"
                    + last
                    + "'"))
        .isEqualTo(4);
  }

  @Test
  void aSlotWhoseFireFailedIsFiredAgainOnceTheFaultClears() throws Exception {
    // A real fault in PostgreSQL, not a mock: a trigger refuses the events of one slot's stream
    // while `fault` holds its ID, so every fire of that slot fails (no record) and the slots
    // around it complete. The timer must find the hole in the ledger (the rescan after a failed
    // fire) and fire it again once the fault clears: one record, one effect.
    String job = "flaky";
    start("flaky", job(job, "ALL", "PT2S"), receiving(job)); // migrates the schema
    Instant victim = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(3);
    String stream = StreamIds.slot(DeterministicIds.forSlot(job, victim));
    execute(InjectedFaults.refuseEventsOf(stream).toArray(String[]::new));
    String records = "SELECT count(*) FROM job_runs WHERE job = '" + job + "'";
    String victimRecords = records + " AND nominal = '" + victim + "'";
    // The slots after the victim complete while its fires keep failing.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> count(records + " AND status = 'COMPLETED' AND nominal > '" + victim + "'") >= 3);
    assertThat(count(victimRecords)).isZero();
    execute(InjectedFaults.CLEAR);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> count(victimRecords + " AND status = 'COMPLETED'") == 1);
    assertThat(count(victimRecords)).isEqualTo(1);
    // Its effect once, and no slot of the run with two effects.
    String effects =
        " FROM domain_event_entry WHERE aggregate_identifier = '"
            + StreamIds.inventory(job)
            + "' AND payload_type LIKE '%StockReceived'";
    String reason = "convert_from(payload, 'UTF8')::jsonb->>'reason'";
    assertThat(count("SELECT count(*)" + effects + " AND " + reason + " = 'tick " + victim + "'"))
        .isEqualTo(1);
    // In one query: the timer still fires, and two queries could see different effects.
    assertThat(count("SELECT count(*) - count(DISTINCT " + reason + ")" + effects)).isZero();
  }

  private void execute(String... statements) throws Exception {
    InjectedFaults.apply(db, statements);
  }

  @Test
  void aLongDowntimeLeavesOneRecordPerSlotAcrossSeveralPlans() throws Exception {
    // 1,500 slots: more than one plan's limit, so the missed slots are recorded in two rounds.
    int downtime = DuePlanner.PLAN_LIMIT + 500;
    Instant lastRun = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(downtime);
    seedLastSlot(lastRun, List.of("long-job"));
    start("long", job("long-job", "LATEST", "PT2S"), receiving("long-job"));
    String caughtUp =
        " FROM job_runs WHERE job = 'long-job' AND nominal > '"
            + lastRun
            + "' AND nominal <= '"
            + lastRun.plusSeconds(downtime)
            + "'";
    // Every slot of the downtime ends with its one record (a row per slot ID) ...
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                count("SELECT count(*)" + caughtUp + " AND status IN ('MISSED', 'COMPLETED')")
                    == downtime);
    // ... and at most the newest of them ran: LATEST records the others as missed.
    assertThat(count("SELECT count(*)" + caughtUp + " AND status = 'MISSED'"))
        .isGreaterThanOrEqualTo(downtime - 1);
  }

  @Test
  void afterDowntimeTheCatchUpPolicyDecides() throws Exception {
    Instant lastRun = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(8);
    seedLastSlot(lastRun, List.of("all-job", "latest-job"));
    // Every instance reads the same schedules: either may hold either job's partition.
    JobsFile both =
        JobsFile.parse(
            jobYaml("all-job", "ALL", "PT2S")
                + jobYaml("latest-job", "LATEST", "PT2S").replace("jobs:\n", ""),
            "test-jobs");
    Function<WriteModel, Map<String, JobHandler>> handlers =
        model -> {
          Map<String, JobHandler> h = new java.util.HashMap<>(receiving("all-job").apply(model));
          h.putAll(receiving("latest-job").apply(model));
          return h;
        };
    start("all", both, handlers);
    start("latest", both, handlers);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM job_runs WHERE job = 'all-job' AND status = 'COMPLETED' AND nominal <= '"
                            + lastRun.plusSeconds(8)
                            + "'")
                    == 8);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM job_runs WHERE job = 'latest-job' AND nominal > '"
                            + lastRun
                            + "' AND nominal <= '"
                            + lastRun.plusSeconds(8)
                            + "'")
                    == 8);
    // LATEST: the slots of the downtime but the newest are recorded as missed, not run.
    assertThat(
            count(
                "SELECT count(*) FROM job_runs WHERE job = 'latest-job' AND status = 'MISSED' AND nominal > '"
                    + lastRun
                    + "'"))
        .isGreaterThanOrEqualTo(6);
  }
}
