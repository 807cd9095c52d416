package io.slotkeeper.business.jobs;

import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code retention-cleanup}: deletes idempotency keys that expired ({@code expires_at} before now;
 * the key's lifetime is set when it is claimed) or are older than {@code idempotencyKeyRetention}
 * (default P2D, the shipped jobs file's value; keep it at or above {@code
 * SLOTKEEPER_IDEMPOTENCY_TTL}, or keys go before their promised lifetime), and the {@code job_runs}
 * rows of finished slots (COMPLETED, MISSED, SKIPPED) whose nominal time is older than {@code
 * ledgerRetention} (default P30D) before the slot's nominal instant. Deleting is naturally
 * idempotent: a second run finds nothing more to delete.
 *
 * <p>Not purged, on purpose: the event store and {@code command_ledger} are the source of truth
 * (the ledger is what turns a re-sent command ID into a duplicate; dropping a row would let an old
 * command apply again), and FAILED or FIRED slots stay for an operator. {@code job_runs} is only a
 * read model of the slot events, which remain in the store. The newest row of each job is kept
 * whatever its age, so the scheduler still knows a long-idle job's last slot.
 *
 * <p>HTTP target attempts ({@code delivery_attempts}) sent before the same limit go once their
 * slot's row is gone (a FAILED slot keeps them: they say a refused slot is not to be sent again).
 *
 * <p>Counts: {@code idempotencyKeysDeleted}, {@code jobRunsDeleted}, {@code
 * deliveryAttemptsDeleted}.
 */
public final class RetentionCleanupJob implements JobHandler {

  public static final String NAME = "retention-cleanup";

  /** How long finished slots stay in {@code job_runs} unless {@code ledgerRetention} says. */
  public static final Duration DEFAULT_LEDGER_RETENTION = Duration.ofDays(30);

  private static final String KEYS =
      "DELETE FROM idempotency_keys"
          + " WHERE expires_at < now() OR created_at < now() - (? * interval '1 second')";
  private static final String RUNS =
      "DELETE FROM job_runs r WHERE r.status IN ('COMPLETED', 'MISSED', 'SKIPPED')"
          + " AND r.nominal < ?"
          + " AND r.nominal < (SELECT max(n.nominal) FROM job_runs n WHERE n.job = r.job)";

  private static final String DELIVERIES =
      "DELETE FROM delivery_attempts d WHERE d.sent_at < ?"
          + " AND NOT EXISTS (SELECT 1 FROM job_runs r WHERE r.slot_id = d.slot_id)";

  private final JobSql sql;

  public RetentionCleanupJob(DataSource dataSource) {
    this.sql = new JobSql(dataSource);
  }

  @Override
  public Map<String, Long> run(SlotRun run) {
    Duration retention =
        JobParams.positiveDuration(run, "ledgerRetention", DEFAULT_LEDGER_RETENTION);
    Duration keys = JobParams.positiveDuration(run, "idempotencyKeyRetention", Duration.ofDays(2));
    return new Tally("idempotencyKeysDeleted", "jobRunsDeleted", "deliveryAttemptsDeleted")
        .add("idempotencyKeysDeleted", sql.update(KEYS, keys.toSeconds()))
        .add("jobRunsDeleted", sql.update(RUNS, run.nominal().minus(retention)))
        .add("deliveryAttemptsDeleted", sql.update(DELIVERIES, run.nominal().minus(retention)))
        .toMap();
  }
}
