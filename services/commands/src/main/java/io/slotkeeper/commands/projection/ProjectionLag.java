package io.slotkeeper.commands.projection;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.platform.axon.AxonStorage;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far each projection is behind the event store, and which of its segments cannot advance;
 * measured every {@link #PERIOD} (not per scrape) from PostgreSQL: the store's head (the highest
 * global index) and every segment's stored token ({@link TokenTable}), whichever instance holds it.
 * A processor's lag is the head minus its lowest segment, unclaimed segments included. Which
 * segments do not advance (failing here, or held by no instance) is decided by {@link
 * StuckSegments} from the same reading.
 */
public final class ProjectionLag implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProjectionLag.class);
  public static final Duration PERIOD = Duration.ofSeconds(5);

  private record SegmentKey(String processor, int segment) {}

  private final DataSource dataSource;
  private final Supplier<Map<String, EventProcessor>> processors;
  private final TokenTable tokens;
  private final Clock clock;
  private final ScheduledExecutorService poller;
  private final Map<String, Long> lag = new ConcurrentHashMap<>();
  private final StuckSegments stuckSegments;
  private volatile List<StuckSegment> stuck = List.of();
  private volatile long head = -1;

  public ProjectionLag(
      DataSource dataSource,
      Supplier<Map<String, EventProcessor>> processors,
      SlotkeeperMetrics metrics,
      ProjectionFailures failures,
      Clock clock) {
    this.dataSource = dataSource;
    this.processors = processors;
    this.stuckSegments = new StuckSegments(failures);
    this.tokens = new TokenTable(AxonStorage.eventSerializer(), AxonStorage.CLAIM_TIMEOUT);
    this.clock = clock;
    metrics.eventStoreHead(this, p -> p.head);
    for (String name : processors.get().keySet()) {
      metrics.projectionLag(
          name,
          this,
          p -> {
            Long l = p.lag.get(name);
            return l == null ? Double.NaN : l;
          });
      registerStuckMeters(metrics, name);
    }
    poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "slotkeeper-projection-lag");
              t.setDaemon(true);
              return t;
            });
    poller.scheduleWithFixedDelay(this::poll, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The highest global index in the store (-1 before the first poll or when empty). */
  public long head() {
    return head;
  }

  /** Events behind the head, by processor (over all its segments), as of the last poll. */
  public Map<String, Long> lag() {
    return Map.copyOf(lag);
  }

  /** The segments that do not advance, as of the last poll. */
  public List<StuckSegment> stuck() {
    return stuck;
  }

  /** One measurement (also called by tests). */
  public void poll() {
    Instant now = clock.instant();
    List<TokenTable.Segment> segments;
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT max(global_index) FROM domain_event_entry")) {
      rs.next();
      long h = rs.getLong(1);
      head = rs.wasNull() ? -1 : h;
      segments = tokens.read(c, now);
    } catch (Exception e) {
      log.warn("projection positions not measured: {}", e.toString());
      return;
    }
    Set<String> names = processors.get().keySet();
    Map<SegmentKey, Long> here = positionsHere();
    List<TokenTable.Segment> known = new ArrayList<>();
    Map<String, Long> lowest = new HashMap<>();
    for (TokenTable.Segment s : segments) {
      if (names.contains(s.processor())) {
        long position =
            Math.max(
                s.position(), here.getOrDefault(new SegmentKey(s.processor(), s.segment()), -1L));
        known.add(
            new TokenTable.Segment(s.processor(), s.segment(), position, s.owner(), s.claimed()));
        lowest.merge(s.processor(), position, Math::min);
      }
    }
    for (String name : names) {
      Long position = lowest.get(name);
      if (position == null) {
        lag.remove(name); // no token yet: the processor has not initialised its segments
      } else {
        lag.put(name, Math.max(0, head - position));
      }
    }
    stuck = stuckSegments.update(known, names, now);
  }

  /**
   * Positions of the segments running here, fresher than their stored tokens: a segment stores its
   * token when it handles events, so one whose events all go to other segments lags in the table.
   */
  private Map<SegmentKey, Long> positionsHere() {
    Map<SegmentKey, Long> here = new HashMap<>();
    processors
        .get()
        .forEach(
            (name, p) -> {
              if (p instanceof StreamingEventProcessor && p.isRunning()) {
                ((StreamingEventProcessor) p)
                    .processingStatus()
                    .forEach(
                        (segment, status) ->
                            status
                                .getCurrentPosition()
                                .ifPresent(at -> here.put(new SegmentKey(name, segment), at)));
              }
            });
    return here;
  }

  private void registerStuckMeters(SlotkeeperMetrics metrics, String processor) {
    metrics.projectionErrors(processor);
    for (StuckSegment.Reason reason : StuckSegment.Reason.values()) {
      metrics.projectionSegmentsStuck(
          processor,
          reason.name().toLowerCase(Locale.ROOT),
          this,
          p ->
              p.stuck.stream()
                  .filter(s -> s.processor().equals(processor) && s.reason() == reason)
                  .count());
    }
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
