package io.slotkeeper.timers;

import io.slotkeeper.scheduler.schedule.SlotClock;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures how far this instance's clock is from PostgreSQL's, every {@link #PERIOD}. Slots are
 * computed from the instance clock while the ledger and projections stamp PostgreSQL time; a large
 * skew shows up as lag (or negative lag) and is worth an alert, not a silent misfire.
 */
public final class ClockSkewVerticle extends VerticleBase {

  private static final Logger log = LoggerFactory.getLogger(ClockSkewVerticle.class);
  static final Duration PERIOD = Duration.ofSeconds(30);
  static final Duration WARN_ABOVE = Duration.ofMillis(500);

  private final Pool pool;
  private final SlotClock clock;
  private final AtomicReference<Duration> skew = new AtomicReference<>();
  private long timer;

  public ClockSkewVerticle(Pool pool, SlotClock clock) {
    this.pool = pool;
    this.clock = clock;
  }

  /**
   * PostgreSQL's time minus this instance's (positive: our clock is behind); null until measured.
   */
  public Duration skew() {
    return skew.get();
  }

  @Override
  public Future<?> start() {
    timer = vertx.setPeriodic(0, PERIOD.toMillis(), id -> measure());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }

  /** One measurement; the round trip is halved so a slow query does not read as skew. */
  Future<Duration> measure() {
    Instant sent = clock.now();
    return pool.query("SELECT clock_timestamp() AS now")
        .execute()
        .map(
            rows -> {
              Instant received = clock.now();
              Instant db = rows.iterator().next().getOffsetDateTime("now").toInstant();
              Instant local = sent.plus(Duration.between(sent, received).dividedBy(2));
              Duration measured = Duration.between(local, db);
              skew.set(measured);
              if (measured.abs().compareTo(WARN_ABOVE) > 0) {
                log.warn("clock skew to PostgreSQL is {} ms", measured.toMillis());
              }
              return measured;
            })
        .onFailure(e -> log.warn("clock skew not measured: {}", e.toString()));
  }
}
