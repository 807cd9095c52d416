package io.slotkeeper.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Every slotkeeper meter, defined in one place. Micrometer names here; the Prometheus names at
 * {@code /metrics} add the unit and {@code _total} suffixes (listed in docs/operations.md):
 *
 * <ul>
 *   <li>{@code slotkeeper_slots_total{job,outcome}}, {@code slotkeeper_slot_lag_seconds{job}},
 *       {@code slotkeeper_slot_duration_seconds{job}}, {@code slotkeeper_slot_expected_total{job}}
 *   <li>{@code slotkeeper_commands_total{command,outcome}}, {@code
 *       slotkeeper_command_duration_seconds{command}}
 *   <li>{@code slotkeeper_idempotency_requests_total{route,result}}
 *   <li>{@code slotkeeper_projection_lag_events{processor}}, {@code
 *       slotkeeper_event_store_head_position}
 *   <li>{@code slotkeeper_projection_errors_total{processor}}, {@code
 *       slotkeeper_projection_segments_stuck{processor,reason}}
 *   <li>{@code slotkeeper_lease_held{job}} (this instance holds the job's partition), {@code
 *       slotkeeper_lease_changes_total{job}}, {@code slotkeeper_timer_partitions}, {@code
 *       slotkeeper_timer_partitions_held}, {@code slotkeeper_timer_cursor_loads_waiting}, {@code
 *       slotkeeper_timer_cursor_load_seconds{outcome}}, {@code slotkeeper_clock_skew_seconds}
 *   <li>{@code slotkeeper_job_stalled{job}}, {@code slotkeeper_timer_errors_total{job,step}}
 *   <li>{@code slotkeeper_metrics_schedules_overflow}
 * </ul>
 *
 * <p>With a schedule limit, the schedules beyond it share the {@code job} (or {@code schedule})
 * value {@code _other} and have no gauges ({@link ScheduleSeries} says which and why). What a
 * schedule registers at zero is kept, to register it again when the schedule moves across the
 * limit.
 */
public final class SlotkeeperMetrics {

  /** The outcomes of {@code slotkeeper_slots_total}. */
  public enum SlotOutcome {
    FIRED,
    COMPLETED,
    FAILED,
    DUPLICATE,
    SKIPPED,
    MISSED,
    BACKFILLED;

    public String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The outcomes of {@code slotkeeper_commands_total}. */
  public enum CommandOutcome {
    APPLIED,
    DUPLICATE,
    REJECTED,
    FAILED;

    public String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private static final Duration[] SLO_BUCKETS = {
    Duration.ofMillis(10),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(2),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofSeconds(60),
    Duration.ofMinutes(5),
  };

  private final MeterRegistry registry;
  // Null: every schedule has series of its own.
  private final ScheduleSeries schedules;
  // What each schedule registers at zero (by kind), run again when its label changes.
  private final Map<String, Map<String, Runnable>> atZero = new ConcurrentHashMap<>();
  // The per-request meters, by their tags (see command()).
  private final Map<Series, Counter> commandCounters = new ConcurrentHashMap<>();
  private final Map<String, Timer> commandTimers = new ConcurrentHashMap<>();
  private final Map<Series, Counter> idempotencyCounters = new ConcurrentHashMap<>();
  private final Map<Series, Counter> deliveryCounters = new ConcurrentHashMap<>();
  private final Map<String, Timer> deliveryTimers = new ConcurrentHashMap<>();

  /** Two tag values that name a series. */
  private record Series(String first, String second) {}

  /** Every schedule with series of its own (tests and tools). */
  public SlotkeeperMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.schedules = null;
  }

  /**
   * At most {@code schedules} schedules with series of their own ({@code
   * SLOTKEEPER_METRICS_SCHEDULES}); the others are {@code _other}.
   */
  public SlotkeeperMetrics(MeterRegistry registry, int schedules) {
    this.registry = registry;
    this.schedules = new ScheduleSeries(schedules);
    Gauge.builder(
            "slotkeeper.metrics.schedules.overflow", this.schedules, ScheduleSeries::overflowing)
        .description("schedules beyond SLOTKEEPER_METRICS_SCHEDULES, reported as job=\"_other\"")
        .strongReference(true)
        .register(registry);
  }

  /** Meters that go nowhere (tests and tools that do not scrape). */
  public static SlotkeeperMetrics none() {
    return new SlotkeeperMetrics(new SimpleMeterRegistry());
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Registers a schedule and creates its series at zero, so that dashboards and alerts see them
   * before any slot. Until then its meters are {@code _other} when there is a limit.
   */
  public synchronized void registerJob(String job) {
    if (schedules != null) {
      String moved = schedules.add(job);
      if (moved != null) {
        relabel(moved);
      }
    }
    atZero(
        job,
        "job",
        () -> {
          for (SlotOutcome outcome : SlotOutcome.values()) {
            slotCounter(job, outcome);
          }
          expectedCounter(job);
          leaseChangesCounter(job);
          slotLagTimer(job);
          slotDurationTimer(job);
        });
  }

  /**
   * Removes every series of a schedule that no longer exists (tagged {@code job} or {@code
   * schedule} with its name): a deleted name is never used again, so they would only pile up. Its
   * place among the schedules with series of their own goes to the first of the others by name.
   */
  public synchronized void forgetJob(String job) {
    atZero.remove(job);
    String moved = schedules == null ? null : schedules.remove(job);
    removeSeriesOf(job);
    if (moved != null) {
      relabel(moved);
    }
  }

  /** Registers the schedule's series at zero now, and again whenever its label changes. */
  private synchronized void atZero(String job, String kind, Runnable register) {
    if (schedules != null) {
      atZero.computeIfAbsent(job, k -> new ConcurrentHashMap<>()).put(kind, register);
    }
    register.run();
  }

  /**
   * The schedule moved across the limit (its label changed already): into {@code _other}, its own
   * series go; either way, its zero series are registered under the new label.
   */
  private void relabel(String job) {
    if (label(job).equals(ScheduleSeries.OTHER)) {
      removeSeriesOf(job);
    } else {
      forgetCached(job);
    }
    atZero.getOrDefault(job, Map.of()).values().forEach(Runnable::run);
  }

  private void removeSeriesOf(String job) {
    List<Meter> gone =
        registry.getMeters().stream()
            .filter(
                m ->
                    job.equals(m.getId().getTag("job")) || job.equals(m.getId().getTag("schedule")))
            .toList();
    gone.forEach(registry::remove);
    forgetCached(job);
  }

  private void forgetCached(String job) {
    deliveryCounters.keySet().removeIf(k -> k.first().equals(job));
    deliveryTimers.remove(job);
  }

  private String label(String job) {
    return schedules == null ? job : schedules.label(job);
  }

  /**
   * The schedule's meter under its current label. A schedule moving to {@code _other} loses its
   * meters after its label changed, so one created under its name in between is removed here.
   */
  private <M extends Meter> M ofSchedule(String job, Function<String, M> register) {
    String label = label(job);
    M meter = register.apply(label);
    String now = label(job);
    if (!now.equals(label) && now.equals(ScheduleSeries.OTHER)) {
      registry.remove(meter);
      meter = register.apply(now);
    }
    return meter;
  }

  public void slot(String job, SlotOutcome outcome) {
    slotCounter(job, outcome).increment();
  }

  /** Nominal instant to the fire (never negative: a fire a little early counts as on time). */
  public void slotLag(String job, Duration lag) {
    slotLagTimer(job).record(lag.isNegative() ? Duration.ZERO : lag);
  }

  public void slotDuration(String job, Duration duration) {
    slotDurationTimer(job).record(duration);
  }

  /**
   * One attempt of an HTTP target's delivery: {@code slotkeeper_deliveries_total{schedule,outcome}}
   * and {@code slotkeeper_delivery_seconds{schedule}} (from the request's start to its answer or
   * failure). The outcomes are a fixed set; schedule names are chosen by operators.
   */
  public void delivery(String schedule, String outcome, Duration latency) {
    // Cached by label: a schedule whose label changes has its entries removed (relabel).
    String label = label(schedule);
    deliveryCounters
        .computeIfAbsent(
            new Series(label, outcome),
            k ->
                ofSchedule(
                    schedule,
                    l ->
                        Counter.builder("slotkeeper.deliveries")
                            .description("HTTP target delivery attempts, by how they ended")
                            .tag("schedule", l)
                            .tag("outcome", outcome)
                            .register(registry)))
        .increment();
    deliveryTimers
        .computeIfAbsent(
            label,
            k ->
                ofSchedule(
                    schedule,
                    l ->
                        Timer.builder("slotkeeper.delivery")
                            .description("HTTP target delivery attempts, from request to answer")
                            .tag("schedule", l)
                            .serviceLevelObjectives(SLO_BUCKETS)
                            .register(registry)))
        .record(latency);
  }

  private Timer slotLagTimer(String job) {
    return ofSchedule(
        job,
        l ->
            Timer.builder("slotkeeper.slot.lag")
                .description("from a slot's nominal instant to its fire")
                .tag("job", l)
                .serviceLevelObjectives(SLO_BUCKETS)
                .register(registry));
  }

  private Timer slotDurationTimer(String job) {
    return ofSchedule(
        job,
        l ->
            Timer.builder("slotkeeper.slot.duration")
                .description("the job handler's run time for one slot attempt")
                .tag("job", l)
                .serviceLevelObjectives(SLO_BUCKETS)
                .register(registry));
  }

  /** Slots the schedule says fell due (computed from the schedule alone). */
  public void slotsExpected(String job, long count) {
    expectedCounter(job).increment(count);
  }

  public void command(String command, CommandOutcome outcome, long nanos) {
    // Looked up once per series: building and registering a meter per command cost the event
    // loops ~5% of their samples (Meter.Id, tags, the registry's map).
    commandCounters
        .computeIfAbsent(
            new Series(command, outcome.tag()),
            k ->
                Counter.builder("slotkeeper.commands")
                    .description("commands sent to the write side, by outcome")
                    .tag("command", command)
                    .tag("outcome", outcome.tag())
                    .register(registry))
        .increment();
    commandTimers
        .computeIfAbsent(
            command,
            k ->
                Timer.builder("slotkeeper.command.duration")
                    .description("from sending a command to its outcome, retries included")
                    .tag("command", command)
                    .serviceLevelObjectives(SLO_BUCKETS)
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** {@code result}: new, replayed, conflict or mismatch. */
  public void idempotencyRequest(String route, String result) {
    idempotencyCounters
        .computeIfAbsent(
            new Series(route, result),
            k ->
                Counter.builder("slotkeeper.idempotency.requests")
                    .description("requests with an Idempotency-Key, by what the key store answered")
                    .tag("route", route)
                    .tag("result", result)
                    .register(registry))
        .increment();
  }

  public <T> void projectionLag(String processor, T state, ToDoubleFunction<T> lag) {
    Gauge.builder("slotkeeper.projection.lag.events", state, lag)
        .description("events in the store not yet handled by the processor, over all segments")
        .tag("processor", processor)
        .strongReference(true)
        .register(registry);
  }

  // Projection failures (issue 24): a segment that cannot advance is counted and shown.

  /** Creates the processor's error counter at zero (dashboards and alerts see it at once). */
  public void projectionErrors(String processor) {
    projectionErrorCounter(processor);
  }

  /** A batch of the processor failed and rolled back (it is retried, never skipped). */
  public void projectionError(String processor) {
    projectionErrorCounter(processor).increment();
  }

  /** Segments of the processor that do not advance, by reason (failing, unclaimed). */
  public <T> void projectionSegmentsStuck(
      String processor, String reason, T state, ToDoubleFunction<T> count) {
    Gauge.builder("slotkeeper.projection.segments.stuck", state, count)
        .description("segments of the processor that do not advance: failing here, or unclaimed")
        .tag("processor", processor)
        .tag("reason", reason)
        .strongReference(true)
        .register(registry);
  }

  private Counter projectionErrorCounter(String processor) {
    return Counter.builder("slotkeeper.projection.errors")
        .description("failed (rolled back, retried) batches of the processor")
        .tag("processor", processor)
        .register(registry);
  }

  public <T> void eventStoreHead(T state, ToDoubleFunction<T> head) {
    Gauge.builder("slotkeeper.event.store.head.position", state, head)
        .description("the highest global index in the event store")
        .strongReference(true)
        .register(registry);
  }

  /** 1 while this instance holds the job's lease. */
  public void leaseHeld(String job, Supplier<Boolean> held) {
    atZero(
        job,
        "lease.held",
        () ->
            jobFlag(
                "slotkeeper.lease.held",
                "1 on the instance that holds the job's lease",
                job,
                held));
  }

  /**
   * The timer partitions: how many there are, and how many this instance holds (their schedules run
   * here).
   */
  public void timerPartitions(int count, Supplier<Integer> held) {
    Gauge.builder("slotkeeper.timer.partitions", () -> count)
        .description("timer partitions configured (SLOTKEEPER_TIMER_PARTITIONS)")
        .strongReference(true)
        .register(registry);
    Gauge.builder("slotkeeper.timer.partitions.held", held, h -> h.get())
        .description("timer partitions whose lease this instance holds")
        .strongReference(true)
        .register(registry);
  }

  /**
   * The timer engine's cursor loads: the schedules waiting for theirs (thousands while the
   * partitions of an instance that died are taken over, else about 0), and each batch's duration by
   * outcome ({@code ok}, {@code failed}).
   */
  public void timerCursorLoads(Supplier<Integer> waiting) {
    Gauge.builder("slotkeeper.timer.cursor.loads.waiting", waiting, w -> w.get())
        .description("schedules whose timer waits for its cursor to be read from the slot ledger")
        .strongReference(true)
        .register(registry);
  }

  /** One batch of cursor loads ended after {@code nanos}. */
  public void cursorLoad(boolean ok, long nanos) {
    Timer.builder("slotkeeper.timer.cursor.load")
        .description("reading a batch of timer cursors from the slot ledger, by outcome")
        .tag("outcome", ok ? "ok" : "failed")
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * A per-job gauge that reads 1 while {@code flag} is true, else 0; none for {@code _other} (one
   * value for many schedules means nothing). Registered under the lock that moves schedules.
   */
  private void jobFlag(String name, String description, String job, Supplier<Boolean> flag) {
    if (label(job).equals(ScheduleSeries.OTHER)) {
      return;
    }
    Gauge.builder(name, flag, f -> Boolean.TRUE.equals(f.get()) ? 1 : 0)
        .description(description)
        .tag("job", job)
        .strongReference(true)
        .register(registry);
  }

  /** This instance acquired the job's lease (a change of holder). */
  public void leaseChanged(String job) {
    leaseChangesCounter(job).increment();
  }

  /** PostgreSQL's clock minus this instance's, in seconds (NaN until measured). */
  public void clockSkew(Supplier<Duration> skew) {
    Gauge.builder(
            "slotkeeper.clock.skew.seconds",
            skew,
            s -> {
              Duration d = s.get();
              return d == null ? Double.NaN : d.toNanos() / 1e9;
            })
        .description("PostgreSQL's clock minus this instance's")
        .strongReference(true)
        .register(registry);
  }

  // ---- Timer health: stalled jobs and timer faults (docs/scheduling.md, "Self-healing") ----

  /** 1 while this instance holds the job's lease and the job fired nothing for two periods. */
  public void jobStalled(String job, Supplier<Boolean> stalled) {
    atZero(
        job,
        "job.stalled",
        () ->
            jobFlag(
                "slotkeeper.job.stalled",
                "1 while this instance holds the job's lease but fired no slot for 2 periods",
                job,
                stalled));
  }

  /**
   * Creates the job's timer-fault series at zero; called where the job's timer runs (only that
   * instance counts the job's faults). Not lazily at the first fault: the alert
   * SlotkeeperTimerFaults and the dashboard read {@code increase()}, which does not count the first
   * fault of a series that appears at 1, so a single fault would never show.
   */
  public void registerTimerErrors(String job, Iterable<String> steps) {
    atZero(
        job,
        "timer.errors",
        () -> {
          for (String step : steps) {
            timerErrorCounter(job, step);
          }
        });
  }

  /** A PostgreSQL or Redis call on the job's timer failed or timed out at {@code step}. */
  public void timerError(String job, String step) {
    timerErrorCounter(job, step).increment();
  }

  private Counter timerErrorCounter(String job, String step) {
    return ofSchedule(
        job,
        l ->
            Counter.builder("slotkeeper.timer.errors")
                .description("faults of the timers' PostgreSQL and Redis calls, by job and step")
                .tag("job", l)
                .tag("step", step)
                .register(registry));
  }

  // ---- end of timer health ----

  // ---- Schedule catalog: each instance's copy of the schedules read table ----

  /** Seconds since this instance's schedule catalog last read the read table (NaN before). */
  public void scheduleCatalogAge(Supplier<Duration> age) {
    Gauge.builder(
            "slotkeeper.schedule.catalog.age.seconds",
            age,
            a -> {
              Duration d = a.get();
              return d == null ? Double.NaN : d.toNanos() / 1e9;
            })
        .description("time since this instance's schedule catalog last read the schedules table")
        .strongReference(true)
        .register(registry);
    scheduleCatalogErrorCounter();
  }

  /** A poll of the schedules table failed or timed out (it is retried on the next tick). */
  public void scheduleCatalogError() {
    scheduleCatalogErrorCounter().increment();
  }

  private Counter scheduleCatalogErrorCounter() {
    return Counter.builder("slotkeeper.schedule.catalog.errors")
        .description("failed or timed-out polls of the schedules table")
        .register(registry);
  }

  private Counter slotCounter(String job, SlotOutcome outcome) {
    return ofSchedule(
        job,
        l ->
            Counter.builder("slotkeeper.slots")
                .description(
                    "slots by outcome (fired, completed, failed, duplicate, skipped, missed ...)")
                .tag("job", l)
                .tag("outcome", outcome.tag())
                .register(registry));
  }

  private Counter expectedCounter(String job) {
    return ofSchedule(
        job,
        l ->
            Counter.builder("slotkeeper.slot.expected")
                .description("slots due by the schedule alone since this instance started")
                .tag("job", l)
                .register(registry));
  }

  private Counter leaseChangesCounter(String job) {
    return ofSchedule(
        job,
        l ->
            Counter.builder("slotkeeper.lease.changes")
                .description("times this instance acquired the job's lease")
                .tag("job", l)
                .register(registry));
  }
}
