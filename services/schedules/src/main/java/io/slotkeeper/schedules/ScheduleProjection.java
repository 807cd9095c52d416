package io.slotkeeper.schedules;

import io.slotkeeper.commands.projection.ProjectionSql;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleChanged;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleCreated;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleDeleted;
import io.slotkeeper.events.schedules.ScheduleEvent.SchedulePaused;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleResumed;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import java.sql.Timestamp;
import java.time.Instant;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.eventhandling.SequenceNumber;

/**
 * The {@code schedules} read table, and the two switches the timers read by job name: {@code
 * job_controls.paused} (pause and resume) and {@code job_first_planned} (raised to a change's
 * effective instant, so catch-up never reaches back before an edit). Exactly once: rows and the
 * processor's token commit in one transaction, and a row applies an event only over an older
 * version. A rebuild clears {@code schedules} alone: the switches are shared with the timers and
 * their writes here are idempotent (a pause is a state, a raised point only rises).
 */
@ProcessingGroup(ScheduleProjection.NAME)
public class ScheduleProjection {

  public static final String NAME = "schedules-projection";

  private static final String CREATED =
      "INSERT INTO schedules (name, definition, version, state, managed_by, source, effective_at,"
          + " created_at, updated_at) VALUES (?, ?::jsonb, ?, 'ACTIVE', ?, ?, ?, ?, ?)"
          + " ON CONFLICT (name) DO NOTHING";
  private static final String CHANGED =
      "UPDATE schedules SET definition = ?::jsonb, managed_by = ?, source = ?, effective_at = ?,"
          + " version = ?, updated_at = ?, change_seq = nextval('schedules_change_seq'), projected_at = clock_timestamp()"
          + " WHERE name = ? AND version < ?";
  private static final String STATE =
      "UPDATE schedules SET state = ?, version = ?, updated_at = ?,"
          + " change_seq = nextval('schedules_change_seq'), projected_at = clock_timestamp() WHERE name = ? AND version < ?";
  private static final String PAUSED =
      "INSERT INTO job_controls (job, paused, updated_at) VALUES (?, ?, ?)"
          + " ON CONFLICT (job) DO UPDATE SET paused = EXCLUDED.paused,"
          + " updated_at = EXCLUDED.updated_at";
  private static final String FIRST_PLANNED_CREATED =
      "INSERT INTO job_first_planned (job, first_planned, recorded_at) VALUES (?, ?, ?)"
          + " ON CONFLICT (job) DO NOTHING";
  private static final String FIRST_PLANNED_CHANGED =
      "INSERT INTO job_first_planned (job, first_planned, recorded_at) VALUES (?, ?, ?)"
          + " ON CONFLICT (job) DO UPDATE SET first_planned ="
          + " GREATEST(job_first_planned.first_planned, EXCLUDED.first_planned),"
          + " recorded_at = EXCLUDED.recorded_at";

  private static final String TABLE = "schedules";

  private final ProjectionSql sql;

  public ScheduleProjection(ProjectionSql sql) {
    this.sql = sql;
  }

  @EventHandler
  void on(
      ScheduleCreated e,
      @SequenceNumber long seq,
      @org.axonframework.eventhandling.Timestamp Instant at) {
    Timestamp ts = Timestamp.from(at);
    sql.write(
        TABLE,
        e.name(),
        CREATED,
        e.name(),
        JobSpecs.json(e.definition()).toString(),
        seq + 1,
        e.managedBy().name(),
        e.source(),
        Timestamp.from(e.effectiveAt()),
        ts,
        ts);
    // A job the timers planned before it became a schedule keeps its point (and its catch-up).
    sql.write(
        "job_first_planned",
        e.name(),
        FIRST_PLANNED_CREATED,
        e.name(),
        Timestamp.from(e.effectiveAt()),
        ts);
  }

  @EventHandler
  void on(
      ScheduleChanged e,
      @SequenceNumber long seq,
      @org.axonframework.eventhandling.Timestamp Instant at) {
    Timestamp ts = Timestamp.from(at);
    sql.write(
        TABLE,
        e.name(),
        CHANGED,
        JobSpecs.json(e.definition()).toString(),
        e.managedBy().name(),
        e.source(),
        Timestamp.from(e.effectiveAt()),
        seq + 1,
        ts,
        e.name(),
        seq + 1);
    sql.write(
        "job_first_planned",
        e.name(),
        FIRST_PLANNED_CHANGED,
        e.name(),
        Timestamp.from(e.effectiveAt()),
        ts);
  }

  @EventHandler
  void on(
      SchedulePaused e,
      @SequenceNumber long seq,
      @org.axonframework.eventhandling.Timestamp Instant at) {
    state(e.name(), ScheduleState.PAUSED, seq, at);
    sql.write("job_controls", e.name(), PAUSED, e.name(), true, Timestamp.from(at));
  }

  @EventHandler
  void on(
      ScheduleResumed e,
      @SequenceNumber long seq,
      @org.axonframework.eventhandling.Timestamp Instant at) {
    state(e.name(), ScheduleState.ACTIVE, seq, at);
    sql.write("job_controls", e.name(), PAUSED, e.name(), false, Timestamp.from(at));
  }

  @EventHandler
  void on(
      ScheduleDeleted e,
      @SequenceNumber long seq,
      @org.axonframework.eventhandling.Timestamp Instant at) {
    state(e.name(), ScheduleState.DELETED, seq, at);
  }

  private void state(String name, ScheduleState state, long seq, Instant at) {
    sql.write(TABLE, name, STATE, state.name(), seq + 1, Timestamp.from(at), name, seq + 1);
  }

  @ResetHandler
  void reset() {
    sql.update("DELETE FROM schedules");
  }
}
