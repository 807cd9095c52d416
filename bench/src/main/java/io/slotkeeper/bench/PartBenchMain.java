package io.slotkeeper.bench;

import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One part of {@code make bench} alone, for iterating on it: {@code schedules} ({@code make
 * bench-schedules}, {@link ScheduleFleetBench}) or {@code deliveries} ({@code make
 * bench-deliveries}, {@link DeliveryBench}); writes {@code <out>/<part>-<yyyy-mm-dd>.json} and
 * {@code .md}. Exits 1 when the part failed, 0 otherwise (also when a figure misses its target: the
 * report says so), 2 without a service jar or with an unknown part.
 */
public final class PartBenchMain {

  /**
   * A part: how its figures are defined, how it runs, and its settings as the report lists them.
   */
  private record Part(
      String title,
      BiConsumer<Figures, BenchSettings> define,
      Function<Bench, Function<Figures, Runnable>> body,
      Function<BenchSettings, String> settings) {}

  private static final Map<String, Part> PARTS =
      Map.of(
          "schedules",
          new Part(
              "slotkeeper many-schedules benchmark",
              ScheduleFleetBench::define,
              bench -> figures -> new ScheduleFleetBench(bench, figures)::run,
              BenchMain::scheduleSettingsText),
          "deliveries",
          new Part(
              "slotkeeper HTTP-target benchmark",
              DeliveryBench::define,
              bench -> figures -> new DeliveryBench(bench, figures)::run,
              BenchMain::deliverySettingsText));

  private PartBenchMain() {}

  public static void main(String[] args) throws IOException {
    String name = args.length == 1 ? args[0] : "";
    Part part = PARTS.get(name);
    if (part == null) {
      System.err.println("usage: PartBenchMain " + String.join("|", PARTS.keySet()));
      System.exit(2);
    }
    BenchSettings s = BenchSettings.forRun("bench-" + name);
    Figures figures = new Figures();
    part.define().accept(figures, s);
    Instant started = Instant.now();
    int failures;
    try (Bench bench = new Bench(s)) {
      Bench.log(
          "bench-%s run %s%s, output %s",
          name, bench.runId, s.quick() ? " (QUICK)" : "", s.outDir());
      failures = BenchMain.phase(name, s, figures, part.body().apply(bench).apply(figures));
      BenchMain.write(
          s,
          bench,
          figures,
          started,
          name + "-",
          part.title(),
          "Each figure is one measurement.",
          part.settings().apply(s) + " " + BenchMain.serviceSettingsText(s),
          false);
    }
    System.exit(failures == 0 ? 0 : 1);
  }
}
