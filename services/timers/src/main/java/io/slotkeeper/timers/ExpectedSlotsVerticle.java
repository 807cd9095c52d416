package io.slotkeeper.timers;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.Slots;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts {@code slotkeeper_slot_expected_total{job}}: the slots each enabled job's schedule says
 * fell due since this instance started, walked from the schedule alone every {@link #PERIOD}. It
 * shares nothing with the timers (no lease, no ledger, no cursor), so a timer that silently stops
 * firing shows as expected minus fired growing.
 */
public final class ExpectedSlotsVerticle extends VerticleBase {

  static final Duration PERIOD = Duration.ofSeconds(1);
  private static final int LIMIT = 10_000;

  private final List<JobDefinition> jobs;
  private final SlotkeeperMetrics metrics;
  private final SlotClock clock;
  private final Map<String, Instant> walked = new LinkedHashMap<>();
  private long timer = -1;

  public ExpectedSlotsVerticle(
      List<JobDefinition> jobs, SlotkeeperMetrics metrics, SlotClock clock) {
    this.jobs = jobs.stream().filter(JobDefinition::enabled).toList();
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public Future<?> start() {
    Instant started = clock.now();
    for (JobDefinition job : jobs) {
      metrics.registerJob(job.name());
      walked.put(job.name(), started);
    }
    timer = vertx.setPeriodic(PERIOD.toMillis(), id -> advance());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }

  /** Counts the slots in (last walked, now] of every job. */
  void advance() {
    Instant now = clock.now();
    for (JobDefinition job : jobs) {
      Instant from = walked.get(job.name());
      List<Instant> due = Slots.between(job.schedule(), from, now, LIMIT);
      if (!due.isEmpty()) {
        metrics.slotsExpected(job.name(), due.size());
      }
      walked.put(job.name(), due.size() == LIMIT ? due.get(due.size() - 1) : now);
    }
  }
}
