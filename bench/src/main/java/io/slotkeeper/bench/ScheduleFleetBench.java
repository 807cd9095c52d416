package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Many schedules: N one-minute cron schedules spread over the minute (schedule i fires at second
 * {@code i % 60}) on the {@code noop} handler, given through a generated jobs file, so that any
 * timer engine runs them. First one instance for a whole number of minutes (slot lag, expected
 * against fired and recorded missed, costs per fired slot; with schedule edits through the API when
 * the service has it), then three instances sharing another N with the busiest one killed (SIGKILL)
 * in the middle: no slot completed twice, none lost, and how long the takeover took. Every figure
 * comes from the slot ledger ({@code job_runs}) and the event store. A service that cannot start
 * its schedules within {@code BENCH_SCHEDULES_START_SECONDS} ends the part with its start-up figure
 * missing the target and a note.
 */
final class ScheduleFleetBench {

  private static final String FIRED = "status IN ('FIRED','COMPLETED','FAILED')";

  /** Settled: slots due at the end of a window are fired and projected within this. */
  private static final Duration GRACE = Duration.ofSeconds(15);

  /**
   * Smaller connection pools for the three instances (as {@code make chaos} uses), so that three
   * fit PostgreSQL's default 100 connections beside the runner and others' tests.
   */
  static final Map<String, String> FLEET_POOLS =
      Map.of("SLOTKEEPER_JDBC_POOL_SIZE", "6", "SLOTKEEPER_PG_CLIENT_POOL_SIZE", "4");

  // The service's default, set so that the bench knows the partition leases to watch.
  static final int PARTITIONS = 64;

  private final Bench bench;
  private final Figures figures;
  private final BenchSettings.ScheduleSettings s;

  ScheduleFleetBench(Bench bench, Figures figures) {
    this.bench = bench;
    this.figures = figures;
    this.s = bench.settings.schedules();
  }

  static void define(Figures f, BenchSettings settings) {
    BenchSettings.ScheduleSettings s = settings.schedules();
    String one = String.format("%,d schedules, one instance, %d min", s.count(), s.minutes());
    String start = "< " + s.startSeconds();
    f.define(
        "schedules.start",
        String.format("Start-up to ready with %,d schedules", s.count()),
        "s",
        start,
        v -> v < s.startSeconds());
    f.define("schedules.lag.p50", "Slot lag p50 (" + one + ")", "ms");
    f.define("schedules.lag.p99", "Slot lag p99 (" + one + ")", "ms", "< 100", v -> v < 100);
    f.define("schedules.lag.max", "Slot lag max (" + one + ")", "ms");
    f.define("schedules.expected", "Slots expected (" + one + ")", "slots");
    f.define("schedules.fired", "Slots fired (" + one + ")", "slots");
    f.define("schedules.missed", "Slots recorded missed (" + one + ")", "slots");
    f.define(
        "schedules.unaccounted",
        "Slots expected but neither fired nor recorded missed (" + one + ")",
        "slots",
        "= 0",
        v -> v == 0);
    f.define("schedules.cpu.service", "Service CPU per fired slot (" + one + ")", "µs");
    f.define("schedules.cpu.postgres", "PostgreSQL CPU per fired slot (" + one + ")", "µs");
    f.define("schedules.pg.tps", "PostgreSQL transactions per second (" + one + ")", "tx/s");
    f.define("schedules.busy", "Machine CPU in use (" + one + ")", "%");
    f.define("schedules.rss", "Peak RSS of the service (" + one + ")", "MiB");
    String edits = s.editsPerMinute() + " edits/min of " + s.edited() + " API schedules";
    f.define("schedules.edits.done", "Schedule edits answered 2xx (" + edits + ")", "edits");
    f.define("schedules.edits.p99", "Schedule edit (PUT) latency p99 (" + edits + ")", "ms");
    f.define(
        "schedules.edits.missed",
        "Slots expected but not fired, with " + edits,
        "slots",
        "= 0",
        v -> v == 0);
    String three =
        String.format(
            "%,d schedules, three instances, %d min, one killed", s.count(), s.fleetMinutes());
    f.define(
        "fleet.start",
        String.format("Start-up to ready, three instances at once with %,d schedules", s.count()),
        "s",
        start,
        v -> v < s.startSeconds());
    f.define("fleet.lag.p99", "Slot lag p99 (" + three + ")", "ms");
    f.define("fleet.expected", "Slots expected (" + three + ")", "slots");
    f.define("fleet.fired", "Slots fired (" + three + ")", "slots");
    f.define("fleet.missed", "Slots recorded missed (" + three + ")", "slots");
    f.define(
        "fleet.lost",
        "Slots expected but neither fired nor recorded missed (" + three + ")",
        "slots",
        "= 0",
        v -> v == 0);
    f.define(
        "fleet.twice",
        "Slots completed twice (event store: SlotCompleted per slot, " + three + ")",
        "slots",
        "= 0",
        v -> v == 0);
    f.define("fleet.retaken", "Slots with more than one attempt (taken over)", "slots");
    f.define("fleet.refused", "Fires refused as duplicates or stale (job_runs)", "fires");
    // The killed instance's leases expire within a TTL of the kill (each was renewed at most a
    // TTL before it) and the survivors share again at that moment; then they read the taken
    // schedules' cursors in batches and fire the slots that fell due meanwhile. Both within a
    // second of the TTL.
    double target = s.leaseTtlSeconds() + 1;
    String withinTarget = String.format("<= %.1f (lease TTL + 1 s)", target);
    f.define(
        "fleet.leases",
        "Takeover of the leases: kill to the last partition of the killed instance held by a"
            + " survivor (Redis)",
        "s",
        withinTarget,
        v -> v <= target);
    f.define(
        "fleet.takeover",
        "Takeover with catch-up: kill to the fire of the last slot that fell due on the killed"
            + " instance's schedules before they were taken over",
        "s",
        withinTarget,
        v -> v <= target);
    f.define(
        "fleet.catchup", "Catch-up: last partition held to the fire of the last late slot", "s");
  }

  /** The jobs file: N one-minute crons, schedule i at second {@code i % 60}, noop handler. */
  static String jobsYaml(List<String> names) {
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (int i = 0; i < names.size(); i++) {
      yaml.append("  - name: ")
          .append(names.get(i))
          .append("\n    schedule: { cron: \"")
          .append(i % 60)
          .append(" * * * * *\" }\n    handler: noop\n");
    }
    return yaml.toString();
  }

  /** A window of whole minutes, so that each one-minute schedule has exactly one slot a minute. */
  record Window(Instant from, Instant to) {
    /** The first whole minute at or after {@code earliest}, for {@code minutes}. */
    static Window startingAfter(Instant earliest, int minutes) {
      Instant from = earliest.truncatedTo(ChronoUnit.MINUTES);
      if (from.isBefore(earliest)) {
        from = from.plus(Duration.ofMinutes(1));
      }
      return new Window(from, from.plus(Duration.ofMinutes(minutes)));
    }

    String where(String jobPrefix) {
      return " FROM job_runs WHERE job LIKE '"
          + jobPrefix
          + "%' AND nominal >= '"
          + from
          + "' AND nominal < '"
          + to
          + "'";
    }

    long minutes() {
      return Duration.between(from, to).toMinutes();
    }
  }

  /** What the ledger holds for a window: slot counts by outcome and the fired slots' lag. */
  record Ledger(long fired, long missed, long skipped, double p50, double p99, double max) {
    static Ledger read(PostgresEndpoint db, String jobPrefix, Window w) {
      double[] r =
          Bench.row(
              db,
              "SELECT count(*) FILTER (WHERE "
                  + FIRED
                  + "), count(*) FILTER (WHERE status = 'MISSED'),"
                  + " count(*) FILTER (WHERE status = 'SKIPPED'),"
                  + " percentile_cont(0.5) WITHIN GROUP (ORDER BY lag_ms),"
                  + " percentile_cont(0.99) WITHIN GROUP (ORDER BY lag_ms), max(lag_ms)"
                  + w.where(jobPrefix));
      return new Ledger((long) r[0], (long) r[1], (long) r[2], r[3], r[4], r[5]);
    }
  }

  /** Both parts; three instances only when one could start the schedules. */
  void run() {
    // BENCH_SKIP=schedules.one or schedules.fleet leaves one of the two parts out.
    if (!bench.settings.runs("schedules.one")) {
      Bench.log("  one instance: skipped (BENCH_SKIP)");
    } else if (!oneInstance()) {
      figures.note("schedules: three instances not run (one instance could not start)");
      return;
    }
    if (bench.settings.runs("schedules.fleet")) {
      fleet();
    } else {
      Bench.log("  three instances: skipped (BENCH_SKIP)");
    }
  }

  /**
   * One instance with N schedules (and the edit load when the service has the Schedule API); false
   * when it did not start in time.
   */
  boolean oneInstance() {
    List<String> names = names("s");
    Path jobs = bench.jobsFile("schedules", jobsYaml(names));
    PostgresEndpoint db = bench.freshDatabase("schedules");
    Bench.Service svc = bench.launchService("schedules", db, jobs, true, timerSettings(Map.of()));
    if (!ready(List.of(svc), "schedules.start")) {
      return false;
    }
    try (svc) {
      String noApi = ScheduleEdits.unavailable(svc.baseUrl());
      List<String> edited = noApi == null ? names("e", s.edited()) : List.of();
      try (ScheduleEdits edits =
          noApi == null
              ? ScheduleEdits.create(svc.baseUrl(), bench.runId + "-edits", edited)
              : null) {
        if (noApi != null) {
          figures.note("edits: not run (" + noApi + ")");
          Bench.log("  edits: not run (%s)", noApi);
        }
        Window w = Window.startingAfter(Instant.now().plusSeconds(5), s.minutes());
        Bench.log("  window %s – %s", w.from(), w.to());
        Bench.sleepUntil(w.from());
        WorkMeter meter = new WorkMeter(db, svc.process().pid());
        WorkMeter.Snapshot before = meter.snapshot();
        if (edits != null) {
          edits.start(s.editsPerMinute());
        }
        Bench.sleepUntil(w.to());
        WorkMeter.Snapshot used = meter.snapshot().minus(before);
        ScheduleEdits.Result editResult = edits == null ? null : edits.stop();
        Bench.sleep(GRACE.toMillis());
        String prefix = bench.runId + "-s-";
        Ledger l = Ledger.read(db, prefix, w);
        long expected = (long) names.size() * w.minutes();
        figures.add("schedules.expected", expected);
        figures.add("schedules.fired", l.fired());
        figures.add("schedules.missed", l.missed());
        figures.add("schedules.unaccounted", Math.max(0, expected - l.fired() - l.missed()));
        figures.add("schedules.lag.p50", l.p50());
        figures.add("schedules.lag.p99", l.p99());
        figures.add("schedules.lag.max", l.max());
        if (l.fired() > 0) {
          figures.add("schedules.cpu.service", used.serviceCpu() * 1e6 / l.fired());
          figures.add("schedules.cpu.postgres", used.postgresCpu() * 1e6 / l.fired());
        }
        double seconds = Duration.between(w.from(), w.to()).toSeconds();
        figures.add("schedules.pg.tps", used.transactions() / seconds);
        if (!Double.isNaN(used.busyPercent())) {
          figures.add("schedules.busy", used.busyPercent());
        }
        figures.add("schedules.rss", svc.process().peakRssMiB());
        skippedNote("one instance", l);
        Bench.log(
            "  one instance: fired %d + missed %d (skipped %d) of %d; lag p50 %.0f p99 %.0f max"
                + " %.0f ms; service CPU %.0f µs per slot; PostgreSQL %.0f tx/s; machine %.0f %%"
                + " busy",
            l.fired(),
            l.missed(),
            l.skipped(),
            expected,
            l.p50(),
            l.p99(),
            l.max(),
            used.serviceCpu() * 1e6 / Math.max(1, l.fired()),
            used.transactions() / seconds,
            used.busyPercent());
        if (editResult != null) {
          recordEdits(db, w, edited.size(), expected, l, editResult);
        }
      }
    }
    return true;
  }

  private void recordEdits(
      PostgresEndpoint db,
      Window w,
      int editedCount,
      long fileExpected,
      Ledger file,
      ScheduleEdits.Result r) {
    Ledger api = Ledger.read(db, bench.runId + "-e-", w);
    long expected = fileExpected + (long) editedCount * w.minutes();
    figures.add("schedules.edits.done", r.ok());
    figures.add("schedules.edits.p99", r.p99Ms());
    figures.add("schedules.edits.missed", Math.max(0, expected - file.fired() - api.fired()));
    if (r.failed() + r.behind() > 0) {
      figures.note(
          String.format(
              "edits: %d failed, %d not sent (%d in flight already); first failure: %s",
              r.failed(), r.behind(), ScheduleEdits.MAX_IN_FLIGHT, r.firstFailure()));
    }
    Bench.log(
        "  edits: %d ok, %d failed, %d behind; PUT p99 %.1f ms; API schedules fired %d, missed %d"
            + " of %d",
        r.ok(),
        r.failed(),
        r.behind(),
        r.p99Ms(),
        api.fired(),
        api.missed(),
        (long) editedCount * w.minutes());
  }

  /** Three instances sharing N schedules; the one that fired the most is killed mid-run. */
  void fleet() {
    List<String> names = names("f");
    Path jobs = bench.jobsFile("fleet", jobsYaml(names));
    PostgresEndpoint db = bench.freshDatabase("fleet");
    List<Bench.Service> fleet = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      fleet.add(bench.launchService("fleet-" + i, db, jobs, true, timerSettings(FLEET_POOLS)));
    }
    if (!ready(fleet, "fleet.start")) {
      return;
    }
    try (PartitionWatch watch = new PartitionWatch(db, PARTITIONS)) {
      Window w = Window.startingAfter(Instant.now().plusSeconds(5), s.fleetMinutes());
      Instant killAt = w.from().plus(Duration.between(w.from(), w.to()).dividedBy(2));
      Bench.log("  window %s – %s, kill at %s", w.from(), w.to(), killAt);
      Bench.sleepUntil(killAt);
      String prefix = bench.runId + "-f-";
      Bench.Service victim = busiest(db, prefix, fleet, killAt.minusSeconds(30));
      List<String> victimLeases = watch.heldBy(victim.instanceId());
      Instant killed = Instant.now();
      victim.process().kill();
      Bench.log(
          "  killed %s (%s) at %s, holding %d partitions",
          victim.label(), victim.instanceId(), killed, victimLeases.size());
      Optional<Double> leasesTaken =
          watch
              .allTakenOver(
                  victimLeases, victim.instanceId(), killed.plusSeconds(3L * s.leaseTtlSeconds()))
              .map(at -> Duration.between(killed, at).toMillis() / 1000.0);
      leasesTaken.ifPresentOrElse(
          seconds -> figures.add("fleet.leases", seconds),
          () ->
              figures.note(
                  "takeover of the leases: the killed instance's partitions were not all held by"
                      + " a survivor within three lease TTLs"));
      Bench.sleepUntil(w.to());
      Bench.sleep(GRACE.toMillis());
      Ledger l = Ledger.read(db, prefix, w);
      long expected = (long) names.size() * w.minutes();
      figures.add("fleet.expected", expected);
      figures.add("fleet.fired", l.fired());
      figures.add("fleet.missed", l.missed());
      figures.add("fleet.lost", Math.max(0, expected - l.fired() - l.missed()));
      figures.add("fleet.lag.p99", l.p99());
      skippedNote("three instances", l);
      double[] dup =
          Bench.row(
              db,
              "SELECT count(*) FILTER (WHERE attempts > 1), coalesce(sum(duplicates_rejected), 0)"
                  + w.where(prefix));
      long twice =
          (long)
              Bench.row(
                  db,
                  "SELECT count(*) FROM (SELECT aggregate_identifier FROM domain_event_entry"
                      + " WHERE payload_type LIKE '%SlotCompleted' GROUP BY aggregate_identifier"
                      + " HAVING count(*) > 1) twice")[0];
      figures.add("fleet.twice", twice);
      figures.add("fleet.retaken", dup[0]);
      figures.add("fleet.refused", dup[1]);
      List<Takeover.FirstFire> firsts =
          Takeover.firstFiresAfter(db, prefix, victim.instanceId(), killed);
      double takeover = Takeover.seconds(killed, firsts);
      if (Double.isNaN(takeover)) {
        figures.note(
            "takeover: not measured (the killed instance "
                + victim.instanceId()
                + " held no schedule that fired after the kill)");
      } else {
        figures.add("fleet.takeover", takeover);
        leasesTaken.ifPresent(
            seconds -> figures.add("fleet.catchup", Math.max(0, takeover - seconds)));
      }
      Bench.log(
          "  three instances: fired %d + missed %d (skipped %d) of %d; completed twice %d;"
              + " retaken %.0f, refused %.0f; %d schedules of the killed instance, takeover %.1f s;"
              + " lag p99 %.0f ms",
          l.fired(),
          l.missed(),
          l.skipped(),
          expected,
          twice,
          dup[0],
          dup[1],
          firsts.size(),
          takeover,
          l.p99());
    } finally {
      fleet.forEach(Bench.Service::close);
    }
  }

  /**
   * Waits for every service to be ready within the start-up deadline (counted from the first
   * launch) and records the slowest start-up; when one is not ready, records the deadline itself (a
   * miss: the target is below it), notes why and stops them all.
   */
  private boolean ready(List<Bench.Service> services, String figure) {
    long launched = services.get(0).process().launchedNanos();
    Duration deadline = Duration.ofSeconds(s.startSeconds());
    try {
      double slowest = 0;
      for (Bench.Service svc : services) {
        Duration left = deadline.minusNanos(System.nanoTime() - launched);
        svc.awaitReady(left.isNegative() ? Duration.ZERO : left);
        slowest = Math.max(slowest, svc.process().startSeconds());
      }
      figures.add(figure, slowest);
      return true;
    } catch (RuntimeException e) {
      // Not ready in time, or exited first: either way not started within the deadline (a miss).
      figures.add(figure, s.startSeconds());
      figures.note(
          String.format(
              "%s: not ready with %,d schedules within %d s (%s); the rest of this part was"
                  + " skipped",
              figure, s.count(), s.startSeconds(), e.getMessage()));
      Bench.log("  %s FAILED: %s", figure, e.getMessage());
      services.forEach(Bench.Service::close);
      return false;
    }
  }

  /** The service that fired the most of these schedules' slots since {@code since}. */
  private static Bench.Service busiest(
      PostgresEndpoint db, String prefix, List<Bench.Service> fleet, Instant since) {
    List<String> byFires =
        Bench.column(
            db,
            "SELECT instance_id FROM job_runs WHERE job LIKE '"
                + prefix
                + "%' AND fired_at >= '"
                + since
                + "' GROUP BY instance_id ORDER BY count(*) DESC");
    return fleet.stream()
        .filter(f -> !byFires.isEmpty() && f.instanceId().equals(byFires.get(0)))
        .findFirst()
        .orElse(fleet.get(0));
  }

  /**
   * {@code more}, the partition lease TTL the takeover target is measured against, and the
   * partition count.
   */
  private Map<String, String> timerSettings(Map<String, String> more) {
    Map<String, String> env = new HashMap<>(more);
    env.put("SLOTKEEPER_TIMER_LEASE_TTL", "PT" + s.leaseTtlSeconds() + "S");
    env.put("SLOTKEEPER_TIMER_PARTITIONS", String.valueOf(PARTITIONS));
    return env;
  }

  /** This part's schedule names; their Redis keys go at exit. */
  private List<String> names(String kind) {
    return bench.jobNames(kind, s.count());
  }

  private List<String> names(String kind, int count) {
    return bench.jobNames(kind, count);
  }

  private void skippedNote(String part, Ledger l) {
    if (l.skipped() > 0) {
      figures.note(
          String.format(
              "schedules, %s: %d slots SKIPPED (overlap; neither fired nor missed)",
              part, l.skipped()));
    }
  }
}
