package io.slotkeeper.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Brings a freshly started JVM (the service, or the baseline server) to its steady state before
 * anything is measured: it drives the phase's own requests at the highest client count in rounds
 * until the JIT compiler threads are quiet, so the figures measure compiled code rather than the
 * compiler. On this 2-core machine the C2 compiler of a fresh service used 35 s of CPU in its first
 * 100 s under load (half a core taken from the service, PostgreSQL and the load generator), and the
 * place-order rate at 32 clients after a 5 s warm-up was half of what it was after 60 s.
 *
 * <p>Quiet means the compiler threads ({@code C1/C2 CompilerThread*}, read from {@code
 * /proc/<pid>/task}) used less than {@code quietShare} of one core in each of the last rounds, one
 * of each kind of request. The time it took and the compiler CPU it cost are figures of their own:
 * they are what a new instance of the service needs before it runs at full speed.
 */
final class JitWarmup {

  /** One round's length: long enough to smooth a single large compilation. */
  static final int ROUND_SECONDS = 5;

  /** The outcome: seconds of load, compiler CPU seconds, and whether the compiler became quiet. */
  record Result(double seconds, double compilerCpuSeconds, boolean quiet) {}

  private JitWarmup() {}

  /** The figures of one warm-up, under {@code id}, of {@code what} (e.g. "a fresh service"). */
  static void define(Figures figures, String id, String what) {
    figures.define(id + ".seconds", "Warm-up of " + what + " to a quiet JIT compiler", "s");
    figures.define(id + ".jit", "JIT compiler CPU during the warm-up of " + what, "s");
  }

  /** Warms process {@code pid} up as the settings say and records the figures under {@code id}. */
  static void warmUp(Figures figures, BenchSettings s, String id, long pid, List<Load.Call> calls) {
    Result r = run(pid, s.maxClients(), s.jitWarmupMaxSeconds(), s.jitQuietShare(), calls);
    figures.add(id + ".seconds", r.seconds());
    figures.add(id + ".jit", r.compilerCpuSeconds());
    Bench.log(
        "  warm-up: %.0f s at %d clients, JIT compiler %.1f s CPU, %s",
        r.seconds(),
        s.maxClients(),
        r.compilerCpuSeconds(),
        r.quiet() ? "quiet" : "still compiling");
    if (!r.quiet()) {
      figures.note(
          String.format(
              "%s: the JIT compiler was still busy after the %d s warm-up limit"
                  + " (BENCH_JIT_WARMUP_MAX_SECONDS); the figures include compilation",
              id, s.jitWarmupMaxSeconds()));
    }
  }

  /**
   * Drives {@code calls} in turn, one round each, at {@code clients} clients until the compiler of
   * process {@code pid} is quiet or {@code maxSeconds} have passed.
   */
  static Result run(
      long pid, int clients, int maxSeconds, double quietShare, List<Load.Call> calls) {
    long t0 = System.nanoTime();
    double cpu0 = compilerCpuSeconds(pid);
    double before = cpu0;
    // Quiet rounds in a row: one of each call is needed, as a quiet round of one kind of request
    // says nothing of the code only another kind runs.
    int quietRounds = 0;
    for (int round = 0; quietRounds < calls.size() && elapsedSeconds(t0) < maxSeconds; round++) {
      long r0 = System.nanoTime();
      Load.run(clients, 0, ROUND_SECONDS, calls.get(round % calls.size()));
      double now = compilerCpuSeconds(pid);
      if (Double.isNaN(now)) {
        // no /proc to read (not Linux, or the process is gone): one round is all we can do
        return new Result(elapsedSeconds(t0), Double.NaN, false);
      }
      quietRounds = (now - before) / elapsedSeconds(r0) < quietShare ? quietRounds + 1 : 0;
      before = now;
    }
    return new Result(elapsedSeconds(t0), before - cpu0, quietRounds >= calls.size());
  }

  /** CPU seconds (user + system) of the JIT compiler threads of a process; NaN if unreadable. */
  static double compilerCpuSeconds(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    double total = 0;
    try (Stream<Path> all = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) all::iterator) {
        try {
          // comm is cut to 15 characters: "C2 CompilerThre"
          if (Files.readString(task.resolve("comm")).contains("CompilerThre")) {
            total += WorkMeter.statSeconds(task.resolve("stat"), 11, 0);
          }
        } catch (IOException e) {
          // the thread ended while we looked
        }
      }
    } catch (IOException e) {
      return Double.NaN;
    }
    return total;
  }

  private static double elapsedSeconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
