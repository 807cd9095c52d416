package io.slotkeeper.business.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** retention-cleanup on PostgreSQL: expired keys and old finished slot rows go, once. */
class RetentionCleanupJobIT {

  private static final Instant NOMINAL = Instant.parse("2026-03-01T10:00:00Z");

  private JobsHarness harness;

  @BeforeEach
  void setUp() {
    harness = new JobsHarness("job-retention");
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  private void key(String key, String expiresIn) {
    harness.execute(
        "INSERT INTO idempotency_keys (idem_key, principal, operation, fingerprint, state,"
            + " expires_at) VALUES ('"
            + key
            + "', 'client', 'op', 'f', 'COMPLETED', now() + interval '"
            + expiresIn
            + "')");
  }

  private void jobRun(String slotId, String job, String nominal, String status) {
    harness.execute(
        "INSERT INTO job_runs (slot_id, job, nominal, status, updated_at, last_position)"
            + " VALUES ('"
            + slotId
            + "', '"
            + job
            + "', '"
            + nominal
            + "', '"
            + status
            + "', now(), 0)");
  }

  private void delivery(String slotId, String sentAt) {
    harness.execute(
        "INSERT INTO delivery_attempts (slot_id, attempt, fencing_token, instance_id, schedule,"
            + " nominal, idem_key, url, outcome, latency_ms, sent_at) VALUES ('"
            + slotId
            + "', 1, 1, 'i', 'j', '"
            + sentAt
            + "', 'k', 'http://h/', 'REFUSED', 1, '"
            + sentAt
            + "')");
  }

  @Test
  void deletesExpiredKeysAndOldFinishedSlotsOnce() {
    key("expired", "-1 second");
    key("live", "1 hour");
    jobRun("old-done", "j", "2026-01-01T00:00:00Z", "COMPLETED");
    jobRun("old-missed", "j", "2026-01-01T00:01:00Z", "MISSED");
    jobRun("old-failed", "j", "2026-01-01T00:02:00Z", "FAILED");
    jobRun("recent", "j", "2026-02-27T00:00:00Z", "COMPLETED");
    jobRun("idle-last", "idle", "2026-01-01T00:00:00Z", "COMPLETED"); // newest row of its job
    delivery("old-done", "2026-01-01T00:00:01Z");
    delivery("old-failed", "2026-01-01T00:02:01Z");
    RetentionCleanupJob job = new RetentionCleanupJob(harness.dataSource());

    Map<String, Long> first =
        job.run(JobsHarness.slot(RetentionCleanupJob.NAME, NOMINAL, Map.of()));
    Map<String, Long> second =
        job.run(JobsHarness.slot(RetentionCleanupJob.NAME, NOMINAL, Map.of()));

    assertThat(first)
        .isEqualTo(
            Map.of(
                "idempotencyKeysDeleted", 1L, "jobRunsDeleted", 2L, "deliveryAttemptsDeleted", 1L));
    assertThat(second)
        .isEqualTo(
            Map.of(
                "idempotencyKeysDeleted", 0L, "jobRunsDeleted", 0L, "deliveryAttemptsDeleted", 0L));
    // A FAILED slot keeps its attempts: they say whether it may be sent again.
    assertThat(harness.queryString("SELECT string_agg(slot_id, ',') FROM delivery_attempts"))
        .isEqualTo("old-failed");
    assertThat(harness.queryString("SELECT string_agg(idem_key, ',') FROM idempotency_keys"))
        .isEqualTo("live");
    assertThat(
            harness.queryString("SELECT string_agg(slot_id, ',' ORDER BY slot_id) FROM job_runs"))
        .isEqualTo("idle-last,old-failed,recent");
  }

  @Test
  void keysOlderThanTheirRetentionGoEvenBeforeTheyExpire() {
    key("young", "7 days");
    key("old", "7 days");
    harness.execute(
        "UPDATE idempotency_keys SET created_at = now() - interval '3 hours'"
            + " WHERE idem_key = 'old'");
    RetentionCleanupJob job = new RetentionCleanupJob(harness.dataSource());

    assertThat(
            job.run(
                JobsHarness.slot(
                    RetentionCleanupJob.NAME, NOMINAL, Map.of("idempotencyKeyRetention", "PT2H"))))
        .containsEntry("idempotencyKeysDeleted", 1L);
    assertThat(harness.queryString("SELECT string_agg(idem_key, ',') FROM idempotency_keys"))
        .isEqualTo("young");
  }

  @Test
  void theRetentionComesFromTheParameter() {
    jobRun("a", "j", "2026-02-27T00:00:00Z", "COMPLETED");
    jobRun("b", "j", "2026-02-28T12:00:00Z", "COMPLETED");
    RetentionCleanupJob job = new RetentionCleanupJob(harness.dataSource());

    assertThat(
            job.run(
                JobsHarness.slot(
                    RetentionCleanupJob.NAME, NOMINAL, Map.of("ledgerRetention", "P1D"))))
        .containsEntry("jobRunsDeleted", 1L);
    assertThat(harness.queryString("SELECT string_agg(slot_id, ',') FROM job_runs")).isEqualTo("b");
  }
}
