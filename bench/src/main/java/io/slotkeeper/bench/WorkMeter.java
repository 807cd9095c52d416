package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.testing.TestInfra;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;

/**
 * What one command costs the machine, read from counters the kernel and PostgreSQL already keep:
 * CPU time of the service (and the part of it its JIT compiler threads used: compilation still
 * running in a measured period is warm-up, not the command's cost), of all PostgreSQL processes, of
 * Redis and of this load generator (from {@code /proc/<pid>/stat}), and PostgreSQL transactions
 * ({@code pg_stat_database} of the service's database), WAL bytes and WAL flushes ({@code
 * pg_stat_wal}, server-wide). Taken at the start and end of a measured period and divided by the
 * commands answered in it, these explain a throughput figure on a CPU-saturated machine: where the
 * CPU of one command goes.
 *
 * <p>Server-wide counters include whatever else the machine runs; the benchmark wants a quiet one.
 * On a virtual machine the hypervisor may also run other guests on its cores: the share of CPU time
 * it stole ({@code steal} in {@code /proc/stat}) says how far a period's figures can be trusted.
 */
final class WorkMeter {

  /** The counters at one instant. */
  record Snapshot(
      double serviceCpu,
      double serviceJitCpu,
      double postgresCpu,
      double redisCpu,
      double loadCpu,
      double transactions,
      double walBytes,
      double walFlushes,
      double stolenTicks,
      double busyTicks,
      double allTicks) {

    Snapshot minus(Snapshot o) {
      return new Snapshot(
          serviceCpu - o.serviceCpu,
          serviceJitCpu - o.serviceJitCpu,
          postgresCpu - o.postgresCpu,
          redisCpu - o.redisCpu,
          loadCpu - o.loadCpu,
          transactions - o.transactions,
          walBytes - o.walBytes,
          walFlushes - o.walFlushes,
          stolenTicks - o.stolenTicks,
          busyTicks - o.busyTicks,
          allTicks - o.allTicks);
    }

    /** The percentage of the machine's CPU time the hypervisor gave to others (NaN: unknown). */
    double stealPercent() {
      return allTicks > 0 ? 100.0 * stolenTicks / allTicks : Double.NaN;
    }

    /** The percentage of the machine's CPU time that some process used (NaN: unknown). */
    double busyPercent() {
      return allTicks > 0 ? 100.0 * busyTicks / allTicks : Double.NaN;
    }

    /** CPU time that all processes of the machine used together, in µs per unit of work. */
    double machineMicrosPer(double units) {
      return busyTicks / TICKS_PER_SECOND * 1e6 / units;
    }
  }

  private static final double TICKS_PER_SECOND = 100.0; // USER_HZ on Linux

  private final PostgresEndpoint db;
  private final long servicePid;

  WorkMeter(PostgresEndpoint db, long servicePid) {
    this.db = db;
    this.servicePid = servicePid;
  }

  /** The figures one meter defines under {@code id}. */
  static void define(Figures figures, String id, String label) {
    figures.define(id + ".cpu.service", label + ": service CPU per command", "µs");
    figures.define(
        id + ".cpu.jit", label + ": of which the service's JIT compiler, per command", "µs");
    figures.define(id + ".cpu.postgres", label + ": PostgreSQL CPU per command", "µs");
    figures.define(id + ".cpu.redis", label + ": Redis CPU per command", "µs");
    figures.define(id + ".cpu.load", label + ": load generator CPU per command", "µs");
    figures.define(id + ".tx", label + ": PostgreSQL transactions per command", "tx");
    figures.define(id + ".wal", label + ": WAL bytes per command", "B");
    figures.define(id + ".flushes", label + ": WAL flushes per command", "flushes");
    figures.define(id + ".steal", label + ": CPU time stolen by the hypervisor", "%");
    defineMachine(figures, id, label, "command");
  }

  /**
   * The machine-wide figures of a period: CPU time of every process per unit of work, and the share
   * of the machine's CPU in use. Unlike the per-process figures these need no list of parties, so
   * the pgbench ceiling gets them too, and a command's cost can be set against a ceiling
   * transaction's measured in the same way.
   */
  static void defineMachine(Figures figures, String id, String label, String unit) {
    figures.define(
        id + ".cpu.machine", label + ": machine CPU per " + unit + " (every process)", "µs");
    figures.define(id + ".busy", label + ": machine CPU in use", "%");
  }

  /** Adds the machine-wide figures of the period between two snapshots. */
  static void recordMachine(Figures figures, String id, Snapshot delta, double units) {
    if (units > 0 && delta.allTicks() > 0) {
      figures.add(id + ".cpu.machine", delta.machineMicrosPer(units));
      figures.add(id + ".busy", delta.busyPercent());
    }
  }

  /** Adds the cost per command of the period between two snapshots. */
  static void record(Figures figures, String id, Snapshot delta, long commands) {
    if (commands <= 0) {
      return;
    }
    double n = commands;
    figures.add(id + ".cpu.service", delta.serviceCpu() * 1e6 / n);
    figures.add(id + ".cpu.jit", delta.serviceJitCpu() * 1e6 / n);
    figures.add(id + ".cpu.postgres", delta.postgresCpu() * 1e6 / n);
    figures.add(id + ".cpu.redis", delta.redisCpu() * 1e6 / n);
    figures.add(id + ".cpu.load", delta.loadCpu() * 1e6 / n);
    figures.add(id + ".tx", delta.transactions() / n);
    figures.add(id + ".wal", delta.walBytes() / n);
    figures.add(id + ".flushes", delta.walFlushes() / n);
    if (!Double.isNaN(delta.stealPercent())) {
      figures.add(id + ".steal", delta.stealPercent());
    }
    recordMachine(figures, id, delta, n);
    Bench.log(
        "  cost per command: service %.0f µs (JIT compiler %.0f), PostgreSQL %.0f µs, Redis %.0f µs, load %.0f µs"
            + " CPU (machine %.0f µs, %.0f %% busy); %.2f transactions, %.0f WAL bytes,"
            + " %.2f WAL flushes; %.1f %% CPU stolen",
        delta.serviceCpu() * 1e6 / n,
        delta.serviceJitCpu() * 1e6 / n,
        delta.postgresCpu() * 1e6 / n,
        delta.redisCpu() * 1e6 / n,
        delta.loadCpu() * 1e6 / n,
        delta.machineMicrosPer(n),
        delta.busyPercent(),
        delta.transactions() / n,
        delta.walBytes() / n,
        delta.walFlushes() / n,
        delta.stealPercent());
  }

  Snapshot snapshot() {
    double[] pg =
        Bench.row(
            TestInfra.postgresServer(),
            "SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '"
                + db.database().replace("'", "''")
                + "'), (SELECT wal_bytes FROM pg_stat_wal), (SELECT wal_sync FROM pg_stat_wal)");
    double[] cpu = machineTicks();
    return new Snapshot(
        cpuSeconds(servicePid),
        JitWarmup.compilerCpuSeconds(servicePid),
        cpuSecondsOf("postgres"),
        cpuSecondsOf("redis-server"),
        cpuSeconds(ProcessHandle.current().pid()),
        pg[0],
        pg[1],
        pg[2],
        cpu[0],
        cpu[1],
        cpu[2]);
  }

  /** Only the machine's CPU counters (for a period no service takes part in, e.g. pgbench's). */
  static Snapshot machineSnapshot() {
    double[] cpu = machineTicks();
    return new Snapshot(0, 0, 0, 0, 0, 0, 0, 0, cpu[0], cpu[1], cpu[2]);
  }

  /**
   * Stolen, busy and all CPU ticks of the machine since boot, from the first line of {@code
   * /proc/stat} ({@code cpu user nice system idle iowait irq softirq steal ...}; busy is user,
   * nice, system, irq and softirq); zeros where it cannot be read.
   */
  static double[] machineTicks() {
    try {
      return machineTicks(Files.readAllLines(Path.of("/proc/stat")).get(0));
    } catch (IOException | RuntimeException e) {
      return new double[] {0, 0, 0};
    }
  }

  static double[] machineTicks(String cpuLine) {
    String[] f = cpuLine.trim().split("\\s+");
    double all = 0;
    double busy = 0;
    // user .. steal; guest time is already counted in user
    for (int i = 1; i <= 8 && i < f.length; i++) {
      double ticks = Double.parseDouble(f[i]);
      all += ticks;
      if (i != 4 && i != 5 && i != 8) { // not idle, iowait or steal
        busy += ticks;
      }
    }
    return new double[] {f.length > 8 ? Double.parseDouble(f[8]) : 0, busy, all};
  }

  /**
   * Takes a snapshot when the measured period of a {@link Load#run} started now begins and another
   * when it ends; {@link #await} hands back the difference.
   */
  Period around(int warmupSeconds, int seconds) {
    return around(warmupSeconds, seconds, () -> 0);
  }

  /** The same, with another counter read at the same two instants ({@link Period#counter}). */
  Period around(int warmupSeconds, int seconds, DoubleSupplier counter) {
    return new Period(warmupSeconds, seconds, counter);
  }

  final class Period {
    private final Thread thread;
    private volatile Snapshot delta;
    private volatile double counterDelta;

    private Period(int warmupSeconds, int seconds, DoubleSupplier counter) {
      long start = System.nanoTime();
      thread =
          new Thread(
              () -> {
                sleepUntil(start + warmupSeconds * 1_000_000_000L);
                Snapshot from = snapshot();
                double counterFrom = counter.getAsDouble();
                sleepUntil(start + (warmupSeconds + seconds) * 1_000_000_000L);
                delta = snapshot().minus(from);
                counterDelta = counter.getAsDouble() - counterFrom;
              },
              "work-meter");
      thread.setDaemon(true);
      thread.start();
    }

    Snapshot await() {
      CommandBench.join(thread);
      return delta;
    }

    /** How much the other counter grew in the period (after {@link #await}). */
    double counter() {
      return counterDelta;
    }
  }

  private static void sleepUntil(long nanos) {
    long left = nanos - System.nanoTime();
    if (left > 0) {
      Bench.sleep(left / 1_000_000);
    }
  }

  /** utime + stime of one process (all its threads), in seconds; NaN when unreadable. */
  private static double cpuSeconds(long pid) {
    return statSeconds(pid, 11, Double.NaN);
  }

  /**
   * The sum of two adjacent tick counters of {@code /proc/<pid>/stat}, from {@code field} (counted
   * after the command name: 11 = utime, 13 = cutime), in seconds; {@code otherwise} if unreadable.
   */
  private static double statSeconds(long pid, int field, double otherwise) {
    return statSeconds(Path.of("/proc", Long.toString(pid), "stat"), field, otherwise);
  }

  /** The same for any {@code stat} file of that format (a process's, or one thread's). */
  static double statSeconds(Path statFile, int field, double otherwise) {
    try {
      String stat = Files.readString(statFile);
      // The command name may hold spaces; the fields after it are space-separated.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[field]) + Long.parseLong(f[field + 1])) / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return otherwise;
    }
  }

  /**
   * CPU seconds of every live process with this command name, plus what their reaped children used
   * (cutime + cstime of the parent covers PostgreSQL backends that ended meanwhile).
   */
  private static double cpuSecondsOf(String command) {
    double total = 0;
    try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
      for (ProcessHandle p : (Iterable<ProcessHandle>) all::iterator) {
        String name = commandName(p.pid());
        if (command.equals(name)) {
          total += cpuSeconds(p.pid()) + reapedChildrenSeconds(p.pid());
        }
      }
    }
    return total;
  }

  private static String commandName(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).trim();
    } catch (IOException e) {
      return "";
    }
  }

  private static double reapedChildrenSeconds(long pid) {
    return statSeconds(pid, 13, 0);
  }
}
