package io.slotkeeper.slots;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slotkeeper.commands.projection.ProjectionSql;
import io.slotkeeper.events.slots.SlotEvent.SlotCompleted;
import io.slotkeeper.events.slots.SlotEvent.SlotFailed;
import io.slotkeeper.events.slots.SlotEvent.SlotFireRejected;
import io.slotkeeper.events.slots.SlotEvent.SlotFired;
import io.slotkeeper.events.slots.SlotEvent.SlotMissed;
import io.slotkeeper.events.slots.SlotEvent.SlotSkipped;
import java.sql.Timestamp;
import java.time.Instant;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.messaging.annotation.MessageIdentifier;

/**
 * The {@code job_runs} read table: one row per slot with its state, instance, fencing token,
 * attempts, lag from the nominal instant, duration and outcome counts.
 */
@ProcessingGroup(SlotLedgerProjection.NAME)
public class SlotLedgerProjection {

  public static final String NAME = "job-runs-projection";

  private static final String FIRED =
      "INSERT INTO job_runs (slot_id, job, nominal, status, instance_id, fencing_token, attempts,"
          + " backfill, fired_at, lag_ms, updated_at, last_position)"
          + " VALUES (?, ?, ?, 'FIRED', ?, ?, ?, ?, ?, ?, ?, ?)"
          + " ON CONFLICT (slot_id) DO UPDATE SET status = 'FIRED', instance_id = EXCLUDED.instance_id,"
          + " fencing_token = EXCLUDED.fencing_token, attempts = EXCLUDED.attempts,"
          + " fired_at = EXCLUDED.fired_at, lag_ms = EXCLUDED.lag_ms, error = NULL,"
          + " updated_at = EXCLUDED.updated_at, last_position = EXCLUDED.last_position"
          + " WHERE job_runs.last_position < EXCLUDED.last_position";
  private static final String NOT_RUN =
      "INSERT INTO job_runs (slot_id, job, nominal, status, error, attempts, updated_at,"
          + " last_position) VALUES (?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT (slot_id) DO NOTHING";
  private static final String COMPLETED =
      "UPDATE job_runs SET status = 'COMPLETED', completed_at = ?, duration_ms = ?,"
          + " counts = ?::jsonb, updated_at = ?, last_position = ?"
          + " WHERE slot_id = ? AND last_position < ?";
  private static final String FAILED =
      "UPDATE job_runs SET status = 'FAILED', error = ?, updated_at = ?, last_position = ?"
          + " WHERE slot_id = ? AND last_position < ?";
  private static final String REJECTED =
      "UPDATE job_runs SET duplicates_rejected = duplicates_rejected + 1, updated_at = ?,"
          + " last_position = ? WHERE slot_id = ? AND last_position < ?";

  private static final String TABLE = "job_runs";

  private final ProjectionSql sql;

  public SlotLedgerProjection(ProjectionSql sql) {
    this.sql = sql;
  }

  @EventHandler
  void on(
      SlotFired e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    long position = sql.positionOf(eventId);
    sql.write(
        TABLE,
        e.slotId(),
        FIRED,
        e.slotId(),
        e.job(),
        Timestamp.from(e.nominal()),
        e.instanceId(),
        e.fencingToken(),
        e.attempt(),
        e.backfill(),
        Timestamp.from(e.firedAt()),
        Math.max(0, e.firedAt().toEpochMilli() - e.nominal().toEpochMilli()),
        Timestamp.from(at),
        position);
  }

  @EventHandler
  void on(
      SlotCompleted e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId)
      throws JsonProcessingException {
    long position = sql.positionOf(eventId);
    sql.write(
        TABLE,
        e.slotId(),
        COMPLETED,
        Timestamp.from(at),
        e.durationMillis(),
        ProjectionSql.json(e.counts()),
        Timestamp.from(at),
        position,
        e.slotId(),
        position);
  }

  @EventHandler
  void on(
      SlotFailed e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    long position = sql.positionOf(eventId);
    sql.write(
        TABLE, e.slotId(), FAILED, e.error(), Timestamp.from(at), position, e.slotId(), position);
  }

  @EventHandler
  void on(
      SlotSkipped e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    notRun(e.slotId(), e.job(), e.nominal(), "SKIPPED", e.reason(), at, eventId);
  }

  @EventHandler
  void on(
      SlotMissed e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    notRun(e.slotId(), e.job(), e.nominal(), "MISSED", e.reason(), at, eventId);
  }

  @EventHandler
  void on(
      SlotFireRejected e,
      @org.axonframework.eventhandling.Timestamp Instant at,
      @MessageIdentifier String eventId) {
    long position = sql.positionOf(eventId);
    sql.write(TABLE, e.slotId(), REJECTED, Timestamp.from(at), position, e.slotId(), position);
  }

  @ResetHandler
  void reset() {
    sql.update("DELETE FROM job_runs");
  }

  private void notRun(
      String slotId,
      String job,
      Instant nominal,
      String status,
      String reason,
      Instant at,
      @MessageIdentifier String eventId) {
    sql.write(
        TABLE,
        slotId,
        NOT_RUN,
        slotId,
        job,
        Timestamp.from(nominal),
        status,
        reason,
        Timestamp.from(at),
        sql.positionOf(eventId));
  }
}
