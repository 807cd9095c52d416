package io.slotkeeper.timers;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.Slots;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Counts {@code slotkeeper_slot_expected_total{job}}: the slots each enabled job's schedule says
 * fell due since this instance started (or since the schedule appeared in the catalog), walked from
 * the schedule alone every {@link #PERIOD}. It shares nothing with the timers (no lease, no ledger,
 * no cursor), so a timer that silently stops firing shows as expected minus fired growing.
 */
public final class ExpectedSlotsVerticle extends VerticleBase {

  static final Duration PERIOD = Duration.ofSeconds(1);

  /** The first slot after the last walk of {@code job} (as the catalog had it then). */
  private record Next(JobDefinition job, Instant at) {}

  private static final int LIMIT = 10_000;

  private final ScheduleCatalog catalog;
  private final SlotkeeperMetrics metrics;
  private final SlotClock clock;
  private final Map<String, Instant> walked = new LinkedHashMap<>();
  private final Map<String, Next> nextDue = new HashMap<>();
  private long timer = -1;

  public ExpectedSlotsVerticle(
      ScheduleCatalog catalog, SlotkeeperMetrics metrics, SlotClock clock) {
    this.catalog = catalog;
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public Future<?> start() {
    Instant started = clock.now();
    // In the catalog's order, by name: the schedules with series of their own are the first by
    // name, so none registered in this order is moved to "_other" again (a move scans the
    // registry).
    for (JobDefinition job : enabled()) {
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

  private List<JobDefinition> enabled() {
    return catalog.all().stream().filter(JobDefinition::enabled).toList();
  }

  /** Counts the slots in (last walked, now] of every job; a new one counts from now on. */
  void advance() {
    Instant now = clock.now();
    List<JobDefinition> jobs = enabled();
    Set<String> names = new HashSet<>();
    for (JobDefinition job : jobs) {
      names.add(job.name());
      Instant from = walked.putIfAbsent(job.name(), now);
      if (from == null) {
        metrics.registerJob(job.name());
        continue;
      }
      // One cron step per slot, not one per job and tick: 10,000 schedules walked every second
      // blocked an event loop for seconds on a busy machine.
      Next next = nextDue.get(job.name());
      if (next == null || !next.job().equals(job)) {
        next = new Next(job, job.schedule().nextAfter(from).orElse(Instant.MAX));
        nextDue.put(job.name(), next);
      }
      if (next.at().isAfter(now)) {
        continue;
      }
      nextDue.remove(job.name());
      List<Instant> due = Slots.between(job.schedule(), from, now, LIMIT);
      if (!due.isEmpty()) {
        metrics.slotsExpected(job.name(), due.size());
      }
      walked.put(job.name(), due.size() == LIMIT ? due.get(due.size() - 1) : now);
    }
    walked.keySet().retainAll(names);
    nextDue.keySet().retainAll(names);
  }
}
