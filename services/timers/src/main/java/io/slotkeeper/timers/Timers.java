package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.slotkeeper.slots.LedgerQueries;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timers of this instance: one {@link PartitionTimers} engine running the schedules of the
 * partitions it holds, read from a {@link ScheduleCatalog}; the API asks it about any schedule.
 */
public final class Timers {

  private static final Logger log = LoggerFactory.getLogger(Timers.class);

  /** The instances share the partitions through this roster (see {@link PartitionTimers}). */
  static final String ROSTER = "timer-partitions";

  /**
   * How the engine runs.
   *
   * @param enabled whether this instance runs timers at all ({@code SLOTKEEPER_TIMERS_ENABLED})
   * @param partitions the partition count ({@code SLOTKEEPER_TIMER_PARTITIONS})
   * @param leaseTtl a partition lease's TTL ({@code SLOTKEEPER_TIMER_LEASE_TTL})
   */
  public record Settings(boolean enabled, int partitions, Duration leaseTtl) {

    /** The defaults: 64 partitions, 10 s leases. */
    public static Settings defaults() {
      return new Settings(true, 64, Duration.ofSeconds(10));
    }
  }

  private final ScheduleCatalog catalog;
  private final Partitions partitions;
  private final SlotRunner runner;
  private final SlotClock clock;
  private volatile PartitionTimers engine;

  private Timers(
      ScheduleCatalog catalog, Partitions partitions, SlotRunner runner, SlotClock clock) {
    this.catalog = catalog;
    this.partitions = partitions;
    this.runner = runner;
    this.clock = clock;
  }

  /** The clock the timers decide by; the operator API's "now" is read from it too. */
  public SlotClock clock() {
    return clock;
  }

  /**
   * Deploys the timer engine. Every schedule of the catalog must have a handler; one without stops
   * start-up with a message naming it (a schedule added later without one is not run, and logged).
   */
  public static Future<Timers> deploy(
      Vertx vertx,
      ScheduleCatalog catalog,
      SlotRunner runner,
      CommandBatcher commands,
      RedisLeases leases,
      LedgerQueries ledger,
      SlotClock clock,
      String instanceId,
      Settings settings) {
    for (JobDefinition job : catalog.all()) {
      if (!runner.handles(job)) {
        return Future.failedFuture(
            new IllegalArgumentException(
                "job '"
                    + job.name()
                    + "' names handler '"
                    + job.handler()
                    + "', which this build does not have"));
      }
    }
    Partitions partitions = new Partitions(settings.partitions());
    Timers timers = new Timers(catalog, partitions, runner, clock);
    // In the catalog's order, by name: the first by name get series of their own, so none
    // registered in this order is moved again.
    catalog.all().forEach(job -> timers.register(job.name()));
    catalog.onChange(
        name ->
            catalog
                .get(name)
                .ifPresentOrElse(
                    job -> timers.register(name), () -> runner.metrics().forgetJob(name)));
    if (!settings.enabled()) {
      log.warn("timers are off on this instance: no job fires here (manual runs still work)");
      return Future.succeededFuture(timers);
    }
    PartitionTimers engine =
        new PartitionTimers(
            catalog,
            partitions,
            runner,
            commands,
            leases,
            leases.roster(ROSTER, settings.leaseTtl()),
            ledger,
            clock,
            instanceId,
            settings.leaseTtl());
    runner.metrics().timerPartitions(settings.partitions(), engine::held);
    runner.metrics().timerCursorLoads(engine::cursorLoadsWaiting);
    return vertx
        .deployVerticle(engine)
        .map(
            id -> {
              timers.engine = engine;
              return timers;
            });
  }

  /**
   * Creates the job's series at zero on every instance, whether it runs the job or not (its timer
   * faults: where its timer runs, see {@link TimerHealth}).
   */
  private void register(String job) {
    runner.metrics().registerJob(job);
    runner.metrics().leaseHeld(job, () -> heldLease(job).isPresent());
    runner.metrics().jobStalled(job, () -> stalled(job));
  }

  /** The schedules, as they are now. */
  public ScheduleCatalog catalog() {
    return catalog;
  }

  /** The job's definition, if it exists. */
  public Optional<JobDefinition> job(String name) {
    return catalog.get(name);
  }

  /** The name of the lease of the job's partition (whoever holds it). */
  public String leaseName(String job) {
    return partitions.leaseName(partitions.of(job));
  }

  /** The lease of the job's partition, if this instance holds it. */
  public Optional<Lease> heldLease(String job) {
    PartitionTimers e = engine;
    return e == null ? Optional.empty() : e.heldLease(job);
  }

  /** Whether the job's timer on this instance holds the lease and fired nothing for two periods. */
  public boolean stalled(String job) {
    PartitionTimers e = engine;
    return e != null && e.timer(job).map(t -> t.health().stalled(clock.now())).orElse(false);
  }

  /** The job's timer state on this instance; empty when no timer runs the job here. */
  public Optional<TimerHealth.Report> health(String job) {
    PartitionTimers e = engine;
    return e == null ? Optional.empty() : e.timer(job).map(t -> t.health().report(clock.now()));
  }

  /** The engine's partitions on this instance; empty when the timers are off here. */
  public Optional<PartitionTimers.Report> partitions() {
    PartitionTimers e = engine;
    return e == null ? Optional.empty() : Optional.of(e.report());
  }

  /** The engine, for tests; null when the timers are off here. */
  PartitionTimers engine() {
    return engine;
  }

  public SlotRunner runner() {
    return runner;
  }
}
