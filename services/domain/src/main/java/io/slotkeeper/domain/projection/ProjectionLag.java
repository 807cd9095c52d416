package io.slotkeeper.domain.projection;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far each projection is behind the event store: the store's head (the highest global index,
 * polled every {@link #PERIOD}, not per scrape) minus the lowest position of the processor's
 * segments claimed on this instance. A processor whose segments run on another instance has no lag
 * here (NaN in the gauge, absent in {@link #lag()}).
 */
public final class ProjectionLag implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProjectionLag.class);
  public static final Duration PERIOD = Duration.ofSeconds(5);

  private final DataSource dataSource;
  private final Supplier<Map<String, EventProcessor>> processors;
  private final ScheduledExecutorService poller;
  private final Map<String, Long> lag = new ConcurrentHashMap<>();
  private volatile long head = -1;

  public ProjectionLag(
      DataSource dataSource,
      Supplier<Map<String, EventProcessor>> processors,
      SlotkeeperMetrics metrics) {
    this.dataSource = dataSource;
    this.processors = processors;
    metrics.eventStoreHead(this, p -> p.head);
    for (String name : processors.get().keySet()) {
      metrics.projectionLag(
          name,
          this,
          p -> {
            Long l = p.lag.get(name);
            return l == null ? Double.NaN : l;
          });
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

  /** Events behind the head, by processor running here, as of the last poll. */
  public Map<String, Long> lag() {
    return Map.copyOf(lag);
  }

  /** One measurement (also called by tests). */
  public void poll() {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT max(global_index) FROM domain_event_entry")) {
      rs.next();
      long h = rs.getLong(1);
      head = rs.wasNull() ? -1 : h;
    } catch (Exception e) {
      log.warn("event store head not measured: {}", e.toString());
      return;
    }
    processors
        .get()
        .forEach(
            (name, processor) -> {
              OptionalLong position = position(processor);
              if (position.isPresent()) {
                lag.put(name, Math.max(0, head - position.getAsLong()));
              } else {
                lag.remove(name);
              }
            });
  }

  /** The lowest position of the segments this instance runs; empty when it runs none. */
  private static OptionalLong position(EventProcessor processor) {
    if (!(processor instanceof StreamingEventProcessor) || !processor.isRunning()) {
      return OptionalLong.empty();
    }
    Map<Integer, EventTrackerStatus> status =
        ((StreamingEventProcessor) processor).processingStatus();
    long lowest = Long.MAX_VALUE;
    for (EventTrackerStatus s : status.values()) {
      // A claimed segment that has handled nothing yet is at position -1.
      lowest = Math.min(lowest, s.getCurrentPosition().orElse(-1));
    }
    return status.isEmpty() ? OptionalLong.empty() : OptionalLong.of(lowest);
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
