package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.LedgerQueries;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Deploys one {@link JobTimerVerticle} per enabled job of the jobs file. */
public final class Timers {

  private static final Logger log = LoggerFactory.getLogger(Timers.class);

  private final JobsFile jobs;
  private final SlotRunner runner;
  private final Map<String, JobTimerVerticle> verticles =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final SlotClock clock;

  private Timers(JobsFile jobs, SlotRunner runner, SlotClock clock) {
    this.jobs = jobs;
    this.runner = runner;
    this.clock = clock;
  }

  /** The clock the timers decide by; the operator API's "now" is read from it too. */
  public SlotClock clock() {
    return clock;
  }

  /**
   * Deploys the timers. Every configured job must have a handler; a job without one stops start-up
   * with a message naming it.
   */
  public static Future<Timers> deploy(
      Vertx vertx,
      JobsFile jobs,
      SlotRunner runner,
      CommandBatcher commands,
      RedisLeases leases,
      LedgerQueries ledger,
      SlotClock clock,
      String instanceId,
      boolean startTimers) {
    for (JobDefinition job : jobs.jobs()) {
      if (!runner.handles(job)) {
        return Future.failedFuture(
            new IllegalArgumentException(
                jobs.source()
                    + ": job '"
                    + job.name()
                    + "' names handler '"
                    + job.handler()
                    + "', which this build does not have"));
      }
    }
    Timers timers = new Timers(jobs, runner, clock);
    for (JobDefinition job : jobs.jobs()) {
      runner.metrics().registerJob(job.name());
      runner.metrics().leaseHeld(job.name(), () -> timers.heldLease(job.name()).isPresent());
      runner.metrics().jobStalled(job.name(), () -> timers.stalled(job.name()));
      runner
          .metrics()
          .registerTimerErrors(
              job.name(),
              Arrays.stream(TimerHealth.Step.values()).map(TimerHealth.Step::tag).toList());
    }
    List<Future<String>> deployed = new ArrayList<>();
    if (!startTimers) {
      log.warn("timers are off on this instance: no job fires here (manual runs still work)");
      return Future.succeededFuture(timers);
    }
    for (JobDefinition job : jobs.jobs()) {
      if (!job.enabled()) {
        log.info("job {} is disabled in {}", job.name(), jobs.source());
        continue;
      }
      JobTimerVerticle verticle =
          new JobTimerVerticle(job, runner, commands, leases, ledger, clock, instanceId);
      timers.verticles.put(job.name(), verticle);
      deployed.add(vertx.deployVerticle(verticle));
    }
    return Future.all(deployed).map(timers);
  }

  /** The jobs as configured. */
  public JobsFile jobs() {
    return jobs;
  }

  /** The job's definition, if configured. */
  public Optional<JobDefinition> job(String name) {
    return jobs.jobs().stream().filter(j -> j.name().equals(name)).findFirst();
  }

  /** The lease this instance holds for the job, if any. */
  public Optional<Lease> heldLease(String job) {
    JobTimerVerticle v = verticles.get(job);
    return v == null ? Optional.empty() : v.lease();
  }

  /** Whether the job's timer on this instance holds the lease and fired nothing for two periods. */
  public boolean stalled(String job) {
    JobTimerVerticle v = verticles.get(job);
    return v != null && v.stalled();
  }

  /** The job's timer state on this instance; empty when no timer runs the job here. */
  public Optional<TimerHealth.Report> health(String job) {
    JobTimerVerticle v = verticles.get(job);
    return v == null ? Optional.empty() : Optional.of(v.report());
  }

  public SlotRunner runner() {
    return runner;
  }
}
