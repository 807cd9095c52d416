package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.business.orders.OrderProjection;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.commands.projection.ProjectionFailures;
import io.slotkeeper.commands.projection.ProjectionLag;
import io.slotkeeper.commands.projection.StuckSegment;
import io.slotkeeper.commands.projection.StuckSegment.Reason;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.testing.TestInfra;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.axonframework.eventhandling.EventProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A projection that cannot advance is reported, never skipped: a poison event stops its segment,
 * named with processor, segment, the event's position, the error and since when, and the segment
 * resumes by itself once the cause is gone; a segment that no instance holds is reported too, and
 * lag counts it.
 */
class ProjectionFailuresIT {

  private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 1, 100));

  private WriteModelHarness harness;
  private WriteModel model;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("projection_failures");
    model = harness.start("a", true);
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private void place(String orderId) {
    model.commands().send(new PlaceOrder("place-" + orderId, orderId, "c", "CNY", LINES)).join();
  }

  private void sql(String statement) {
    TestInfra.execute(harness.endpoint(), statement);
  }

  private Optional<StuckSegment> failing() {
    model.projectionLag().poll();
    return model.projectionLag().stuck().stream()
        .filter(s -> s.processor().equals(OrderProjection.NAME))
        .filter(s -> s.reason() == Reason.FAILING)
        .findFirst();
  }

  @Test
  void aPoisonEventStopsItsSegmentVisiblyUntilTheCauseIsGone() {
    place("o-1");
    harness.awaitLong(1, "SELECT count(*) FROM orders");
    // The read table refuses this one event's row, as it refused NUL: a poison event.
    sql("ALTER TABLE orders ADD CONSTRAINT poison CHECK (status_reason IS DISTINCT FROM 'poison')");
    model.commands().send(new CancelOrder("cancel-1", "o-1", "poison")).join();
    long position =
        harness.queryLong(
            "SELECT global_index FROM domain_event_entry WHERE aggregate_identifier = '"
                + StreamIds.order("o-1")
                + "' AND sequence_number = 1");
    for (int i = 0; i < 20; i++) {
      place("later-" + i);
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> failing().isPresent());
    StuckSegment stuck = failing().orElseThrow();
    assertThat(stuck.position()).isEqualTo(position);
    assertThat(stuck.segment()).isBetween(0, 1);
    assertThat(stuck.error()).contains("23514");
    assertThat(stuck.since()).isBeforeOrEqualTo(Instant.now());
    assertThat(stuck.attempts()).isPositive();
    // Never skipped: the event's order is still NEW, and stays so while the cause lasts.
    assertThat(harness.queryString("SELECT status FROM orders WHERE order_id = 'o-1'"))
        .isEqualTo("NEW");
    await().atMost(Duration.ofSeconds(10)).until(() -> failing().orElseThrow().attempts() > 1);
    assertThat(failing().orElseThrow().since()).isEqualTo(stuck.since());
    assertThat(harness.queryLong("SELECT count(*) FROM orders WHERE order_id LIKE 'later-%'"))
        .isLessThan(20);

    sql("ALTER TABLE orders DROP CONSTRAINT poison"); // the cause is gone: Axon retries by itself

    harness.awaitString("CANCELLED", "SELECT status FROM orders WHERE order_id = 'o-1'");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                harness.queryLong("SELECT count(*) FROM orders WHERE order_id LIKE 'later-%'")
                    == 20);
    await().atMost(Duration.ofSeconds(20)).until(() -> failing().isEmpty());
  }

  @Test
  void aSegmentThatNoInstanceHoldsIsReportedAndItsLagCounted() {
    place("o-1");
    harness.awaitLong(1, "SELECT count(*) FROM orders");
    model.processors().values().forEach(EventProcessor::shutDown); // releases every claim
    place("o-2");
    place("o-3");
    MutableClock clock = new MutableClock();
    ProjectionLag lag =
        new ProjectionLag(
            harness.database(2, "observer").dataSource(),
            model::processors,
            SlotkeeperMetrics.none(),
            new ProjectionFailures(SlotkeeperMetrics.none(), clock),
            clock);
    try {
      lag.poll();
      assertThat(lag.stuck()).isEmpty(); // not yet: a claim may just be changing hands
      // Counted although no segment runs anywhere (two events at least: o-2 and o-3).
      assertThat(lag.lag().get(OrderProjection.NAME)).isGreaterThanOrEqualTo(2);

      clock.advance(StuckSegment.UNCLAIMED_AFTER.plusSeconds(1));
      lag.poll();
      assertThat(lag.stuck())
          .filteredOn(s -> s.processor().equals(OrderProjection.NAME))
          .extracting(StuckSegment::segment, StuckSegment::reason)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple(0, Reason.UNCLAIMED),
              org.assertj.core.groups.Tuple.tuple(1, Reason.UNCLAIMED));
      assertThat(lag.stuck()).allSatisfy(s -> assertThat(s.error()).contains("no instance"));
    } finally {
      lag.close();
    }
  }

  /** The system clock, moved forward on demand (a claim's age without waiting for it). */
  private static final class MutableClock extends Clock {
    private volatile Duration offset = Duration.ZERO;

    void advance(Duration d) {
      offset = offset.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
    }
  }
}
