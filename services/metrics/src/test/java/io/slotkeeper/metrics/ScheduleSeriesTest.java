package io.slotkeeper.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.slotkeeper.metrics.SlotkeeperMetrics.SlotOutcome;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Schedules beyond the limit share the series {@code _other} in what Prometheus scrapes: their
 * counters and histograms add up there, their gauges are left out, the overflow is counted, and the
 * schedules with their own series are the first by name on every instance.
 */
class ScheduleSeriesTest {

  private static final List<String> STEPS =
      IntStream.rangeClosed(1, 10).mapToObj(i -> "step-" + i).toList();

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final SlotkeeperMetrics metrics = new SlotkeeperMetrics(registry, 2);
  private final Logger log = (Logger) LoggerFactory.getLogger(ScheduleSeries.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void listen() {
    logged.start();
    log.addAppender(logged);
  }

  @AfterEach
  void stopListening() {
    log.detachAppender(logged);
  }

  @Test
  void twoSchedulesHaveTheirOwnSeriesAndTheOthersAddUpUnderOther() {
    for (String job : List.of("a", "b", "c", "d")) {
      register(metrics, job);
    }
    metrics.slot("a", SlotOutcome.FIRED);
    metrics.slot("c", SlotOutcome.FIRED);
    metrics.slot("d", SlotOutcome.FIRED);
    metrics.slot("d", SlotOutcome.FIRED);
    metrics.slotLag("c", Duration.ofSeconds(1));
    metrics.slotLag("d", Duration.ofSeconds(2));
    metrics.timerError("c", "step-1");
    metrics.timerError("d", "step-1");
    metrics.delivery("c", "ok", Duration.ofMillis(5));
    metrics.delivery("d", "ok", Duration.ofMillis(5));
    String scrape = registry.scrape();

    assertThat(series(scrape, "job=\"a\"")).isEqualTo(53);
    assertThat(series(scrape, "job=\"b\"")).isEqualTo(53);
    assertThat(series(scrape, "job=\"c\"") + series(scrape, "job=\"d\"")).isZero();
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"a\"", "outcome=\"fired\""))
        .isEqualTo(1);
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"_other\"", "outcome=\"fired\""))
        .isEqualTo(3);
    assertThat(value(scrape, "slotkeeper_slot_lag_seconds_count", "job=\"_other\"")).isEqualTo(2);
    assertThat(value(scrape, "slotkeeper_slot_lag_seconds_sum", "job=\"_other\"")).isEqualTo(3);
    assertThat(value(scrape, "slotkeeper_timer_errors_total", "job=\"_other\"", "step=\"step-1\""))
        .isEqualTo(2);
    assertThat(value(scrape, "slotkeeper_deliveries_total", "schedule=\"_other\"")).isEqualTo(2);
    assertThat(value(scrape, "slotkeeper_delivery_seconds_count", "schedule=\"_other\""))
        .isEqualTo(2);
    // The gauges of a and b only: one value for c and d would mean nothing.
    assertThat(lines(scrape, "slotkeeper_lease_held{")).hasSize(2);
    assertThat(lines(scrape, "slotkeeper_job_stalled{")).hasSize(2);
    assertThat(series(scrape, "job=\"_other\"")).isEqualTo(53 - 2);
    assertThat(value(scrape, "slotkeeper_metrics_schedules_overflow")).isEqualTo(2);
    assertThat(logged.list).hasSize(1);
    assertThat(logged.list.get(0).getLevel()).isEqualTo(Level.WARN);
    assertThat(logged.list.get(0).getFormattedMessage())
        .contains("more than 2 schedules: c and", "SLOTKEEPER_METRICS_SCHEDULES");
  }

  @Test
  void everyInstanceGivesTheSameSchedulesTheirOwnSeriesWhateverTheOrderItLearnsThem() {
    PrometheusMeterRegistry other = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SlotkeeperMetrics later = new SlotkeeperMetrics(other, 2);
    for (String job : List.of("d", "c", "b", "a")) {
      register(metrics, job);
    }
    for (String job : List.of("b", "d", "a", "c")) {
      register(later, job);
    }
    for (String scrape : List.of(registry.scrape(), other.scrape())) {
      assertThat(series(scrape, "job=\"a\"")).isEqualTo(53);
      assertThat(series(scrape, "job=\"b\"")).isEqualTo(53);
      assertThat(series(scrape, "job=\"c\"") + series(scrape, "job=\"d\"")).isZero();
    }
  }

  @Test
  void aScheduleCreatedOrDeletedBeforeTheLimitMovesOneAcrossIt() {
    for (String job : List.of("b", "c", "d")) {
      register(metrics, job);
    }
    metrics.slot("c", SlotOutcome.FIRED);
    metrics.slot("d", SlotOutcome.FIRED);
    register(metrics, "a");
    // c, the last of the first two by name before a came, moves to _other.
    metrics.slot("c", SlotOutcome.FIRED);
    String scrape = registry.scrape();
    assertThat(series(scrape, "job=\"a\"")).isEqualTo(53);
    assertThat(series(scrape, "job=\"c\"")).isZero();
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"_other\"", "outcome=\"fired\""))
        .isEqualTo(2);
    assertThat(value(scrape, "slotkeeper_metrics_schedules_overflow")).isEqualTo(2);

    // a is deleted: c comes back, at zero, gauges and timer faults included.
    metrics.forgetJob("a");
    metrics.slot("c", SlotOutcome.COMPLETED);
    // A slot of a that was in flight at the delete: no place, no series back.
    metrics.slot("a", SlotOutcome.COMPLETED);
    scrape = registry.scrape();
    assertThat(series(scrape, "job=\"a\"")).isZero();
    assertThat(series(scrape, "job=\"c\"")).isEqualTo(53);
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"c\"", "outcome=\"fired\"")).isZero();
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"c\"", "outcome=\"completed\""))
        .isEqualTo(1);
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"_other\"", "outcome=\"completed\""))
        .isEqualTo(1);
    assertThat(value(scrape, "slotkeeper_metrics_schedules_overflow")).isEqualTo(1);

    metrics.forgetJob("b");
    scrape = registry.scrape();
    assertThat(series(scrape, "job=\"d\"")).isEqualTo(53);
    assertThat(value(scrape, "slotkeeper_metrics_schedules_overflow")).isZero();
    // The _other series stay: the counts of the schedules that were there are in them.
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"_other\"", "outcome=\"fired\""))
        .isEqualTo(2);
  }

  @Test
  void withALimitOfZeroEveryScheduleIsOther() {
    PrometheusMeterRegistry fresh = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SlotkeeperMetrics none = new SlotkeeperMetrics(fresh, 0);
    register(none, "a");
    none.slot("a", SlotOutcome.MISSED);
    String scrape = fresh.scrape();
    assertThat(series(scrape, "job=\"a\"")).isZero();
    assertThat(value(scrape, "slotkeeper_slots_total", "job=\"_other\"", "outcome=\"missed\""))
        .isEqualTo(1);
    assertThat(value(scrape, "slotkeeper_metrics_schedules_overflow")).isEqualTo(1);
  }

  /**
   * The series one schedule adds to a scrape (docs/operations.md, "Series per schedule"): those of
   * every instance, and the timer-fault counters of the instance that runs its timer.
   */
  @Test
  void oneScheduleHas43SeriesEverywhereAnd10MoreWhereItsTimerRuns() {
    PrometheusMeterRegistry fresh = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SlotkeeperMetrics unlimited = new SlotkeeperMetrics(fresh);
    unlimited.registerJob("a");
    unlimited.leaseHeld("a", () -> true);
    unlimited.jobStalled("a", () -> false);
    assertThat(series(fresh.scrape(), "job=\"a\"")).isEqualTo(43);
    unlimited.registerTimerErrors("a", STEPS);
    assertThat(series(fresh.scrape(), "job=\"a\"")).isEqualTo(53);
  }

  /** What Timers and TimerHealth register for a schedule. */
  private static void register(SlotkeeperMetrics metrics, String job) {
    metrics.registerJob(job);
    metrics.leaseHeld(job, () -> true);
    metrics.jobStalled(job, () -> false);
    metrics.registerTimerErrors(job, STEPS);
  }

  private static List<String> lines(String scrape, String prefix) {
    return scrape.lines().filter(l -> l.startsWith(prefix)).toList();
  }

  /** Sample lines (not comments) carrying the label. */
  private static long series(String scrape, String label) {
    return scrape.lines().filter(l -> !l.startsWith("#") && l.contains(label)).count();
  }

  /** The sum of the samples of {@code name} whose labels contain every matcher. */
  private static double value(String scrape, String name, String... matchers) {
    return scrape
        .lines()
        .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
        .filter(l -> List.of(matchers).stream().allMatch(l::contains))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
