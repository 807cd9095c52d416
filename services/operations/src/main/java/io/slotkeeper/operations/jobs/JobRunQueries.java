package io.slotkeeper.operations.jobs;

import io.slotkeeper.operations.support.Reads;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/** Reads of the {@code job_runs} ledger read model. */
public final class JobRunQueries {

  // An HTTP target's attempts of the slot (null for other handlers), by the table's primary key.
  private static final String DELIVERIES =
      " (SELECT json_agg(json_build_object('attempt', d.attempt, 'fencingToken', d.fencing_token,"
          + " 'instanceId', d.instance_id, 'outcome', d.outcome, 'status', d.status,"
          + " 'latencyMs', d.latency_ms, 'error', d.error, 'response', d.response_head,"
          + " 'retryAfterMs', d.retry_after_ms, 'sentAt', d.sent_at) ORDER BY d.sent_at)"
          + " FROM delivery_attempts d WHERE d.slot_id = job_runs.slot_id) AS deliveries";
  private static final String COLUMNS =
      "SELECT slot_id, job, nominal, status, instance_id, fencing_token, attempts, backfill,"
          + " fired_at, lag_ms, completed_at, duration_ms, counts, error, duplicates_rejected,"
          + DELIVERIES
          + " FROM job_runs ";
  private static final String RANGE =
      COLUMNS + "WHERE job = $1 AND nominal >= $2 AND nominal <= $3 ORDER BY nominal DESC LIMIT $4";
  private static final String BY_SLOT = COLUMNS + "WHERE slot_id = $1";

  private final Pool pool;

  public JobRunQueries(Pool pool) {
    this.pool = pool;
  }

  /** The job's runs with nominal instants in [from, to], newest first. */
  public Future<JsonArray> runs(String job, Instant from, Instant to, int limit) {
    return pool.preparedQuery(RANGE)
        .execute(Tuple.of(job, from.atOffset(ZoneOffset.UTC), to.atOffset(ZoneOffset.UTC), limit))
        .map(
            rows -> {
              JsonArray out = new JsonArray();
              rows.forEach(r -> out.add(json(r)));
              return out;
            });
  }

  /** One slot's run, if the read model has it. */
  public Future<Optional<JsonObject>> bySlot(String slotId) {
    return pool.preparedQuery(BY_SLOT)
        .execute(Tuple.of(slotId))
        .map(rows -> Reads.first(rows, JobRunQueries::json));
  }

  static JsonObject json(Row r) {
    return new JsonObject()
        .put("slotId", r.getString("slot_id"))
        .put("job", r.getString("job"))
        .put("slot", Reads.instant(r.getOffsetDateTime("nominal")))
        .put("status", r.getString("status"))
        .put("instanceId", r.getString("instance_id"))
        .put("fencingToken", r.getLong("fencing_token"))
        .put("attempts", r.getInteger("attempts"))
        .put("backfill", r.getBoolean("backfill"))
        .put("firedAt", Reads.instant(r.getOffsetDateTime("fired_at")))
        .put("lagMs", r.getLong("lag_ms"))
        .put("completedAt", Reads.instant(r.getOffsetDateTime("completed_at")))
        .put("durationMs", r.getLong("duration_ms"))
        .put("counts", r.getJsonObject("counts"))
        .put("error", r.getString("error"))
        .put("duplicatesRejected", r.getInteger("duplicates_rejected"))
        .put("deliveries", r.getJsonArray("deliveries"));
  }
}
