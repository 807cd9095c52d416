package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Timer precision (many 1-second jobs, slot lag from the slot ledger {@code job_runs}) and catch-up
 * (a job whose last known slot is N slots ago: time until the ledger holds all of them). Every job
 * uses the {@code noop} handler, so the figures are the timers' and the ledger's own.
 */
final class TimerBench {

  private final Bench bench;
  private final Figures figures;

  TimerBench(Bench bench, Figures figures) {
    this.bench = bench;
    this.figures = figures;
  }

  static void define(Figures figures, BenchSettings s) {
    String jobs = s.timerJobs() + " jobs every 1 s, " + s.timerSeconds() + " s";
    figures.define("timer.lag.p50", "Slot lag p50 (" + jobs + ")", "ms");
    figures.define("timer.lag.p99", "Slot lag p99 (" + jobs + ")", "ms", "< 50", v -> v < 50);
    figures.define("timer.lag.max", "Slot lag max (" + jobs + ")", "ms", "< 250", v -> v < 250);
    figures.define("timer.expected", "Slots expected (" + jobs + ")", "slots");
    figures.define("timer.fired", "Slots fired (" + jobs + ")", "slots");
    figures.define("timer.missing", "Slots expected but not fired", "slots", "= 0", v -> v == 0);
    figures.define(
        "rss.timers", "Peak RSS of the service running the timers", "MiB", "< 768", v -> v < 768);
    figures.define(
        "catchup.seconds",
        "Catch-up of " + s.catchUpSlots() + " missed slots: restart to complete ledger",
        "s",
        "< 30",
        v -> v < 30);
    figures.define("catchup.start", "Catch-up: service start-up (launch to ready)", "s");
  }

  /** Precision: one service, {@code repeats} consecutive windows. */
  void precision() {
    BenchSettings s = bench.settings;
    StringBuilder yaml = new StringBuilder("jobs:\n");
    String prefix = bench.runId + "-tick-";
    for (int i = 0; i < s.timerJobs(); i++) {
      yaml.append("  - name: ")
          .append(bench.jobName(String.format("tick-%03d", i)))
          .append("\n    schedule: { every: PT1S }\n    handler: noop\n");
    }
    Path jobs = bench.jobsFile("timers", yaml.toString());
    PostgresEndpoint db = bench.freshDatabase("timers");
    try (Bench.Service svc = bench.startService("timers", db, jobs, true)) {
      Bench.sleep(s.timerWarmupSeconds() * 1000L);
      for (int rep = 1; rep <= s.repeats(); rep++) {
        Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant to = from.plusSeconds(s.timerSeconds());
        Bench.sleep(Math.max(0, to.toEpochMilli() - System.currentTimeMillis()) + 3000);
        String where =
            " FROM job_runs WHERE job LIKE '"
                + prefix
                + "%' AND nominal > '"
                + from
                + "' AND nominal <= '"
                + to
                + "'";
        double[] r =
            Bench.row(
                db,
                "SELECT count(*) FILTER (WHERE status IN ('FIRED','COMPLETED','FAILED')),"
                    + " percentile_cont(0.5) WITHIN GROUP (ORDER BY lag_ms),"
                    + " percentile_cont(0.99) WITHIN GROUP (ORDER BY lag_ms), max(lag_ms),"
                    + " count(*) FILTER (WHERE status = 'SKIPPED'),"
                    + " count(*) FILTER (WHERE status = 'MISSED')"
                    + where);
        long expected = (long) s.timerJobs() * s.timerSeconds();
        figures.add("timer.fired", r[0]);
        figures.add("timer.expected", expected);
        figures.add("timer.missing", Math.max(0, expected - r[0]));
        figures.add("timer.lag.p50", r[1]);
        figures.add("timer.lag.p99", r[2]);
        figures.add("timer.lag.max", r[3]);
        Bench.log(
            "  timers window %d: fired %.0f of %d (skipped %.0f, missed %.0f);"
                + " lag p50 %.0f p99 %.0f max %.0f ms",
            rep, r[0], expected, r[4], r[5], r[1], r[2], r[3]);
        if (r[4] + r[5] > 0) {
          figures.note(
              String.format(
                  "timer window %d: %.0f slots SKIPPED and %.0f MISSED (job_runs)",
                  rep, r[4], r[5]));
        }
      }
      figures.add("rss.timers", svc.process().peakRssMiB());
    }
  }

  /**
   * Catch-up: an instance with timers off creates the schema and stops; the job's first planned
   * point is then recorded N seconds ago, as if a timer had planned it then and the service had
   * been down since (a manual run no longer moves where the timers resume: docs/scheduling.md).
   * Then an instance with timers on starts and the clock runs until job_runs holds the N later
   * slots.
   */
  void catchUp(int rep) {
    BenchSettings s = bench.settings;
    int n = s.catchUpSlots();
    String job = bench.jobName("catchup-" + rep);
    Path jobs =
        bench.jobsFile(
            "catchup-" + rep,
            "jobs:\n  - name: "
                + job
                + "\n    schedule: { every: PT1S }\n    handler: noop\n"
                + "    catchUp: { policy: ALL, window: PT"
                + Math.max(3, (n + 600 + 3599) / 3600)
                + "H }\n    overlap: ALLOW\n");
    PostgresEndpoint db = bench.freshDatabase("catchup");
    Instant anchor = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(n);
    try (Bench.Service seed = bench.startService("catchup-seed-r" + rep, db, jobs, false)) {
      Bench.execute(
          db,
          "INSERT INTO job_first_planned (job, first_planned, recorded_at) VALUES ('"
              + job
              + "', '"
              + anchor
              + "', now())");
    }
    Instant last = anchor.plusSeconds(n);
    String count =
        "SELECT count(*) FILTER (WHERE status IN ('COMPLETED','MISSED','SKIPPED')),"
            + " count(*) FILTER (WHERE status = 'COMPLETED'), count(*) FILTER (WHERE status ="
            + " 'MISSED'), count(*) FILTER (WHERE status = 'SKIPPED') FROM job_runs WHERE nominal"
            + " > '"
            + anchor
            + "' AND nominal <= '"
            + last
            + "'";
    try (Bench.Service svc = bench.startService("catchup-r" + rep, db, jobs, true)) {
      long launched = svc.process().launchedNanos();
      long deadline = launched + s.catchUpTimeoutSeconds() * 1_000_000_000L;
      double[] r = Bench.row(db, count);
      while (r[0] < n && System.nanoTime() < deadline) {
        Bench.sleep(100);
        r = Bench.row(db, count);
      }
      double seconds = (System.nanoTime() - launched) / 1e9;
      figures.add("catchup.start", svc.process().startSeconds());
      if (r[0] < n) {
        figures.note(
            String.format(
                "catch-up %d: only %.0f of %d slots in the ledger after %d s",
                rep, r[0], n, s.catchUpTimeoutSeconds()));
      }
      figures.add("catchup.seconds", seconds);
      Bench.log(
          "  catch-up %d: %.0f of %d slots (completed %.0f, missed %.0f, skipped %.0f) in %.1f s"
              + " from launch (start-up %.1f s)",
          rep, r[0], n, r[1], r[2], r[3], seconds, svc.process().startSeconds());
    }
  }
}
