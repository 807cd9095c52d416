package io.slotkeeper.schedules;

import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.job.InMemoryScheduleCatalog;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's copy of the {@code schedules} read table, for the timers and the API: loaded at
 * start, then kept up to date by one query per tick for the rows changed since the last change
 * seen. The query also re-reads rows projected in the last seconds (a projection transaction can
 * commit after a later one, with a smaller change number) and, now and then, every row, so a change
 * missed for any reason heals. A failed or slow poll is counted, logged and reported by {@link
 * #health()}, and the next tick tries again.
 */
public final class ProjectedScheduleCatalog implements ScheduleCatalog, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProjectedScheduleCatalog.class);

  /** How often the table is polled: a change reaches every instance well within a second. */
  public static final Duration POLL_INTERVAL = Duration.ofMillis(250);

  /** The wait before the first read is tried again. */
  static final Duration FIRST_READ_RETRY = Duration.ofSeconds(1);

  /** A poll slower than this counts as failed. */
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

  /** Every this many polls, the whole table is read again. */
  static final int FULL_READ_EVERY = 240;

  private static final String COLUMNS =
      "SELECT name, definition::text AS definition, version, state, change_seq FROM schedules";
  private static final String ALL = COLUMNS;
  private static final String CHANGED =
      COLUMNS + " WHERE change_seq > $1 OR projected_at > clock_timestamp() - interval '5 seconds'";

  private final Vertx vertx;
  private final Pool pool;
  private final SlotkeeperMetrics metrics;
  private final Clock clock;
  private final InMemoryScheduleCatalog schedules = new InMemoryScheduleCatalog();
  // The version each schedule is known at: a row older than it (the read table behind the
  // write side, e.g. while a new projection catches up) is not applied.
  private final Map<String, Long> versions = new ConcurrentHashMap<>();

  // Touched on the poll timer's context only, but read by health() from anywhere.
  private volatile long lastChange = -1;
  private volatile Instant lastRead;
  private volatile String lastError;
  private volatile int failuresInARow;
  private boolean polling;
  private int polls;
  private long timer = -1;
  private volatile boolean closed;

  public ProjectedScheduleCatalog(Vertx vertx, Pool pool, SlotkeeperMetrics metrics, Clock clock) {
    this.vertx = vertx;
    this.pool = pool;
    this.metrics = metrics;
    this.clock = clock;
    metrics.scheduleCatalogAge(
        () -> lastRead == null ? null : Duration.between(lastRead, clock.instant()));
  }

  /**
   * Schedules known from the write side before the read table shows them (the jobs file's, as its
   * sync left them); call before {@link #start()}.
   */
  public void seed(Collection<ScheduleSnapshot> known) {
    for (ScheduleSnapshot s : known) {
      versions.put(s.name(), s.version());
      if (s.state() == ScheduleState.DELETED) {
        schedules.remove(s.name());
      } else {
        schedules.put(JobSpecs.jobOf(s.definition()));
      }
    }
  }

  /**
   * Reads every schedule, then polls. The first read is tried again, a second after each failure,
   * until it works or the catalog is closed: three instances starting together with 10,000
   * schedules on a busy machine saw it time out once, and the instance exited. The caller's
   * start-up deadline bounds the tries.
   */
  public Future<Void> start() {
    return firstRead()
        .onSuccess(
            v -> {
              log.info("schedule catalog loaded: {} schedules", schedules.all().size());
              timer = vertx.setPeriodic(POLL_INTERVAL.toMillis(), id -> poll());
            });
  }

  private Future<Void> firstRead() {
    return read(ALL, Tuple.tuple())
        .recover(
            e -> {
              if (closed) {
                return Future.failedFuture(e);
              }
              Promise<Void> again = Promise.promise();
              vertx.setTimer(FIRST_READ_RETRY.toMillis(), id -> firstRead().onComplete(again));
              return again.future();
            });
  }

  /** One poll; skipped while the previous one runs. */
  void poll() {
    if (polling) {
      return;
    }
    polling = true;
    boolean full = ++polls % FULL_READ_EVERY == 0;
    read(full ? ALL : CHANGED, full ? Tuple.tuple() : Tuple.of(lastChange))
        .onComplete(done -> polling = false);
  }

  private Future<Void> read(String sql, Tuple args) {
    return pool.preparedQuery(sql)
        .execute(args)
        .timeout(QUERY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .map(
            rows -> {
              apply(rows);
              return (Void) null;
            })
        .onSuccess(
            v -> {
              lastRead = clock.instant();
              if (failuresInARow > 0) {
                log.info("schedule catalog reads the schedules table again");
              }
              failuresInARow = 0;
              lastError = null;
            })
        .onFailure(
            e -> {
              metrics.scheduleCatalogError();
              lastError = e.toString();
              // The first failure and then one in forty (ten seconds) are logged.
              if (failuresInARow++ % 40 == 0) {
                log.warn(
                    "schedule catalog cannot read the schedules table ({} in a row): {}",
                    failuresInARow,
                    e.toString());
              }
            });
  }

  private void apply(RowSet<Row> rows) {
    for (Row row : rows) {
      lastChange = Math.max(lastChange, row.getLong("change_seq"));
      String name = row.getString("name");
      long version = row.getLong("version");
      Long known = versions.get(name);
      if (known != null && version < known) {
        continue;
      }
      versions.put(name, version);
      if (ScheduleState.DELETED.name().equals(row.getString("state"))) {
        schedules.remove(name);
        continue;
      }
      try {
        schedules.put(StoredSchedules.jobOf(row.getString("definition")));
      } catch (Exception e) {
        // Kept as it was: a definition this build cannot run is an operator's problem to see.
        log.error("schedule {} cannot be run by this build: {}", name, e.getMessage());
      }
    }
  }

  /** How the catalog reads the table: healthy when its last poll worked. */
  public Health health() {
    return new Health(failuresInARow == 0 && lastRead != null, lastRead, failuresInARow, lastError);
  }

  /**
   * The catalog's state for the health check.
   *
   * @param upToDate the last poll worked
   * @param lastRead when the table was last read, null before the first read
   * @param failuresInARow polls failed since the last good one
   * @param lastError the last failure, null when the last poll worked
   */
  public record Health(boolean upToDate, Instant lastRead, int failuresInARow, String lastError) {}

  @Override
  public List<JobDefinition> all() {
    return schedules.all();
  }

  @Override
  public Optional<JobDefinition> get(String name) {
    return schedules.get(name);
  }

  @Override
  public void onChange(Consumer<String> listener) {
    schedules.onChange(listener);
  }

  @Override
  public void close() {
    closed = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }
}
