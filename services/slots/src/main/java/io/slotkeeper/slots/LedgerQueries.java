package io.slotkeeper.slots;

import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.policy.RetryPolicy;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The timers' reads and small writes: where each job stands, through the PG client. */
public final class LedgerQueries {

  // Where many jobs' cursors start, in one statement: each job's newest slot that a timer fired or
  // recorded (manual runs and backfills, backfill = true, never are the point planning resumes
  // from) and the first planned point recorded for it.
  private static final String CURSOR_STARTS =
      "SELECT j.job,"
          + " (SELECT max(r.nominal) FROM job_runs r WHERE r.job = j.job AND NOT r.backfill) AS last,"
          + " (SELECT f.first_planned FROM job_first_planned f WHERE f.job = j.job) AS first_planned"
          + " FROM unnest($1::text[]) AS j(job)";
  private static final String OLDEST_TIMER_NOMINALS_SINCE =
      "SELECT p.job,"
          + " (SELECT min(r.nominal) FROM job_runs r WHERE r.job = p.job AND NOT r.backfill"
          + " AND r.nominal >= p.since) AS oldest"
          + " FROM unnest($1::text[], $2::timestamptz[]) AS p(job, since)";
  // Write-once: the first instance to plan a job records the point; later ones read it.
  private static final String RECORD_FIRST_PLANNED =
      "WITH added AS (INSERT INTO job_first_planned (job, first_planned, recorded_at)"
          + " SELECT p.job, p.point, now() FROM unnest($1::text[], $2::timestamptz[]) AS p(job, point)"
          + " ON CONFLICT (job) DO NOTHING RETURNING job, first_planned)"
          + " SELECT job, first_planned FROM added"
          + " UNION ALL SELECT job, first_planned FROM job_first_planned WHERE job = ANY($1)";
  // Each job with its own bounds, at most $4 slots each.
  private static final String RECORDED_AMONG =
      "SELECT p.job, s.nominal"
          + " FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS p(job, since, until)"
          + " CROSS JOIN LATERAL (SELECT r.nominal FROM job_runs r WHERE r.job = p.job"
          + " AND r.nominal >= p.since AND r.nominal <= p.until ORDER BY r.nominal LIMIT $4) s";
  private static final String HIGHEST_TOKEN = "SELECT highest_token FROM job_fences WHERE job = $1";
  private static final String STALLED =
      "SELECT nominal, attempts FROM job_runs WHERE job = $1 AND ("
          + " (status = 'FIRED' AND fired_at < $3"
          + " AND (fencing_token < $2 OR (fencing_token = $2 AND instance_id = $6)))"
          + " OR (status = 'FAILED' AND attempts < $4 AND updated_at < $5))"
          + " ORDER BY nominal LIMIT 100";
  // One statement for a whole partition: each job with its own bounds, at most 100 slots each.
  private static final String STALLED_AMONG =
      "SELECT p.job, s.nominal, s.attempts"
          + " FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::timestamptz[])"
          + " AS p(job, fired_before, max_attempts, failed_before)"
          + " CROSS JOIN LATERAL (SELECT nominal, attempts FROM job_runs r WHERE r.job = p.job AND ("
          + " (r.status = 'FIRED' AND r.fired_at < p.fired_before"
          + " AND (r.fencing_token < $5 OR (r.fencing_token = $5 AND r.instance_id = $6)))"
          + " OR (r.status = 'FAILED' AND r.attempts < p.max_attempts"
          + " AND r.updated_at < p.failed_before))"
          + " ORDER BY nominal LIMIT 100) s";
  private static final String HIGHEST_TOKEN_OVERALL =
      "SELECT coalesce(max(highest_token), 0) AS highest FROM job_fences";
  private static final String PAUSED = "SELECT paused FROM job_controls WHERE job = $1";
  private static final String PAUSED_AMONG =
      "SELECT job FROM job_controls WHERE job = ANY($1) AND paused";
  private static final String SET_PAUSED =
      "INSERT INTO job_controls (job, paused, updated_at) VALUES ($1, $2, now())"
          + " ON CONFLICT (job) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()";

  private final Pool pool;

  public LedgerQueries(Pool pool) {
    this.pool = pool;
  }

  /**
   * Where a job's cursor starts: its newest slot a timer fired or recorded, and the point a timer
   * first planned it from (each empty when there is none).
   */
  public record CursorStart(Optional<Instant> last, Optional<Instant> firstPlanned) {}

  /** The cursor starts of many jobs in one statement. */
  public Future<Map<String, CursorStart>> cursorStarts(Collection<String> jobs) {
    if (jobs.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    return pool.preparedQuery(CURSOR_STARTS)
        .execute(Tuple.of(jobs.toArray(String[]::new)))
        .map(
            rows -> {
              Map<String, CursorStart> out = new HashMap<>();
              for (Row r : rows) {
                out.put(
                    r.getString("job"),
                    new CursorStart(instant(r, "last"), instant(r, "first_planned")));
              }
              return out;
            });
  }

  /**
   * For each job, the oldest slot at or after its own bound that a timer fired or recorded (jobs
   * without one are absent), in one statement.
   */
  public Future<Map<String, Instant>> oldestTimerNominalsSince(Map<String, Instant> since) {
    return instantPerJob(OLDEST_TIMER_NOMINALS_SINCE, since, "oldest");
  }

  /**
   * Records each job's first planned point unless one is recorded already (it never changes once
   * written), and answers the recorded ones, in one statement.
   */
  public Future<Map<String, Instant>> recordFirstPlanned(Map<String, Instant> points) {
    return instantPerJob(RECORD_FIRST_PLANNED, points, "first_planned");
  }

  /** Runs {@code sql} on the jobs and their instants ($1, $2) and reads one instant per job. */
  private Future<Map<String, Instant>> instantPerJob(
      String sql, Map<String, Instant> jobs, String column) {
    if (jobs.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    List<String> names = new ArrayList<>(jobs.keySet());
    return pool.preparedQuery(sql)
        .execute(
            Tuple.of(names.toArray(String[]::new), (Object) utc(names.stream().map(jobs::get))))
        .map(rows -> instants(rows, column));
  }

  /** Bounds of a job's slots, both included. */
  public record Span(Instant from, Instant to) {}

  /**
   * For each job, its slots that have a record (any status) within its span, oldest first, at most
   * {@code limitEach} per job, in one statement (jobs without any are absent).
   */
  public Future<Map<String, NavigableSet<Instant>>> recordedAmong(
      Map<String, Span> spans, int limitEach) {
    if (spans.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    List<String> names = new ArrayList<>(spans.keySet());
    return pool.preparedQuery(RECORDED_AMONG)
        .execute(
            Tuple.of(
                names.toArray(String[]::new),
                utc(names.stream().map(n -> spans.get(n).from())),
                utc(names.stream().map(n -> spans.get(n).to())),
                limitEach))
        .map(
            rows -> {
              Map<String, NavigableSet<Instant>> out = new HashMap<>();
              for (Row r : rows) {
                out.computeIfAbsent(r.getString("job"), j -> new TreeSet<>())
                    .add(r.getOffsetDateTime("nominal").toInstant());
              }
              return out;
            });
  }

  private static Optional<Instant> instant(Row row, String column) {
    return Optional.ofNullable(row.getOffsetDateTime(column)).map(OffsetDateTime::toInstant);
  }

  /** Each row's job with its non-null instant in {@code column}. */
  private static Map<String, Instant> instants(RowSet<Row> rows, String column) {
    Map<String, Instant> out = new HashMap<>();
    for (Row r : rows) {
      instant(r, column).ifPresent(i -> out.put(r.getString("job"), i));
    }
    return out;
  }

  // Passed as (Object): Tuple.of(first, array) would spread the array as varargs.
  private static OffsetDateTime[] utc(Stream<Instant> instants) {
    return instants.map(i -> i.atOffset(ZoneOffset.UTC)).toArray(OffsetDateTime[]::new);
  }

  /** The highest fencing token the ledger has accepted for the job (0 if none). */
  public Future<Long> highestToken(String job) {
    return pool.preparedQuery(HIGHEST_TOKEN)
        .execute(Tuple.of(job))
        .map(rows -> rows.size() == 0 ? 0L : rows.iterator().next().getLong("highest_token"));
  }

  /**
   * The highest fencing token the ledger has accepted for any job (0 if none): the floor of a lease
   * that covers many jobs, so that its token is above every token any of them recorded.
   */
  public Future<Long> highestTokenOverall() {
    return pool.query(HIGHEST_TOKEN_OVERALL)
        .execute()
        .map(rows -> rows.iterator().next().getLong("highest"));
  }

  /**
   * A slot to fire again: its runner died (older token), its retry never happened, or this holder
   * lost track of it.
   */
  public record Stalled(Instant nominal, int attempts) {}

  /**
   * Slots FIRED before {@code firedBefore} under an older token (their runner died) or under this
   * holder's own token and instance (the fire's answer or the completion was lost to a fault: the
   * caller leaves out the slots it still runs), or FAILED with attempts left and no retry since
   * {@code failedBefore} (the retry was lost with its instance).
   */
  public Future<List<Stalled>> stalled(
      String job,
      long token,
      String instanceId,
      Instant firedBefore,
      int maxAttempts,
      Instant failedBefore) {
    return pool.preparedQuery(STALLED)
        .execute(
            Tuple.of(
                job,
                token,
                firedBefore.atOffset(ZoneOffset.UTC),
                maxAttempts,
                failedBefore.atOffset(ZoneOffset.UTC),
                instanceId))
        .map(
            rows -> {
              List<Stalled> out = new ArrayList<>();
              for (Row r : rows) {
                out.add(
                    new Stalled(
                        r.getOffsetDateTime("nominal").toInstant(), r.getInteger("attempts")));
              }
              return out;
            });
  }

  /**
   * The job's slots to take over under {@code token} at {@code now}: FIRED more than a lease TTL
   * ago under an older token or under this very holder, or FAILED with attempts left and no retry
   * for longer than the job's longest retry delay.
   */
  public Future<List<Stalled>> stalled(
      JobDefinition job, long token, String instanceId, Instant now) {
    Instant firedBefore = now.minus(job.leaseTtl());
    RetryPolicy retry = job.retryPolicy();
    Instant failedBefore =
        firedBefore.minus(retry.delayBefore(retry.maxAttempts()).orElse(Duration.ZERO));
    return stalled(job.name(), token, instanceId, firedBefore, retry.maxAttempts(), failedBefore);
  }

  /**
   * {@link #stalled(JobDefinition, long, String, Instant)} for many jobs in one statement, each
   * with its own lease TTL and retry policy: the slots by job (jobs without any are absent).
   */
  public Future<Map<String, List<Stalled>>> stalledAmong(
      Collection<JobDefinition> jobs, long token, String instanceId, Instant now) {
    if (jobs.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    List<String> names = new ArrayList<>();
    List<OffsetDateTime> firedBefore = new ArrayList<>();
    List<Integer> maxAttempts = new ArrayList<>();
    List<OffsetDateTime> failedBefore = new ArrayList<>();
    for (JobDefinition job : jobs) {
      Instant fired = now.minus(job.leaseTtl());
      RetryPolicy retry = job.retryPolicy();
      names.add(job.name());
      firedBefore.add(fired.atOffset(ZoneOffset.UTC));
      maxAttempts.add(retry.maxAttempts());
      failedBefore.add(
          fired
              .minus(retry.delayBefore(retry.maxAttempts()).orElse(Duration.ZERO))
              .atOffset(ZoneOffset.UTC));
    }
    return pool.preparedQuery(STALLED_AMONG)
        .execute(
            Tuple.of(
                names.toArray(String[]::new),
                firedBefore.toArray(OffsetDateTime[]::new),
                maxAttempts.toArray(Integer[]::new),
                failedBefore.toArray(OffsetDateTime[]::new),
                token,
                instanceId))
        .map(
            rows -> {
              Map<String, List<Stalled>> out = new HashMap<>();
              for (Row r : rows) {
                out.computeIfAbsent(r.getString("job"), j -> new ArrayList<>())
                    .add(
                        new Stalled(
                            r.getOffsetDateTime("nominal").toInstant(), r.getInteger("attempts")));
              }
              return out;
            });
  }

  /** Which of {@code jobs} an operator paused. */
  public Future<Set<String>> pausedAmong(Collection<String> jobs) {
    if (jobs.isEmpty()) {
      return Future.succeededFuture(Set.of());
    }
    return pool.preparedQuery(PAUSED_AMONG)
        .execute(Tuple.of(jobs.toArray(String[]::new)))
        .map(
            rows -> {
              Set<String> out = new HashSet<>();
              for (Row r : rows) {
                out.add(r.getString("job"));
              }
              return out;
            });
  }

  /** Whether an operator paused the job. */
  public Future<Boolean> paused(String job) {
    return pool.preparedQuery(PAUSED)
        .execute(Tuple.of(job))
        .map(rows -> rows.size() > 0 && rows.iterator().next().getBoolean("paused"));
  }

  /** Pauses or resumes the job on every instance. */
  public Future<Void> setPaused(String job, boolean paused) {
    return pool.preparedQuery(SET_PAUSED).execute(Tuple.of(job, paused)).mapEmpty();
  }
}
