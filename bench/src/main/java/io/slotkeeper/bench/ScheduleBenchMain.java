package io.slotkeeper.bench;

import java.io.IOException;
import java.time.Instant;

/**
 * {@code make bench-schedules}: only the many-schedules part of {@code make bench} ({@link
 * ScheduleFleetBench}), for iterating on the timer engine; writes {@code
 * <out>/schedules-<yyyy-mm-dd>.json} and {@code .md}. Exits 1 when the part failed, 0 otherwise
 * (also when a figure misses its target: the report says so), 2 without a service jar.
 */
public final class ScheduleBenchMain {

  private ScheduleBenchMain() {}

  public static void main(String[] args) throws IOException {
    BenchSettings s = BenchSettings.forRun("bench-schedules");
    Figures figures = new Figures();
    ScheduleFleetBench.define(figures, s);
    Instant started = Instant.now();
    int failures;
    try (Bench bench = new Bench(s)) {
      Bench.log(
          "bench-schedules run %s%s, output %s",
          bench.runId, s.quick() ? " (QUICK)" : "", s.outDir());
      ScheduleFleetBench schedules = new ScheduleFleetBench(bench, figures);
      failures = BenchMain.phase("schedules", s, figures, schedules::run);
      BenchMain.write(
          s,
          bench,
          figures,
          started,
          "schedules-",
          "slotkeeper many-schedules benchmark",
          "Each figure is one measurement.",
          BenchMain.scheduleSettingsText(s) + " " + BenchMain.serviceSettingsText(s),
          false);
    }
    System.exit(failures == 0 ? 0 : 1);
  }
}
