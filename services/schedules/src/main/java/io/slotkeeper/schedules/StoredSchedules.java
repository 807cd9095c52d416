package io.slotkeeper.schedules;

import io.slotkeeper.events.schedules.ScheduleDefinition;
import io.slotkeeper.platform.json.Json;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One schedule as the {@code schedules} read table holds it now, read with JDBC: for code on a
 * worker thread (a slot's handler) that meets a schedule this instance's catalog has not polled yet
 * (an operator triggered it a moment after creating it).
 */
public final class StoredSchedules {

  private static final String LIVE =
      "SELECT definition::text FROM schedules WHERE name = ? AND state <> 'DELETED'";
  private static final int DEADLINE_SECONDS = 5;

  private final DataSource dataSource;

  public StoredSchedules(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The live schedule named {@code name}; empty when there is none or it was deleted. */
  public Optional<JobDefinition> find(String name) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(LIVE)) {
      ps.setQueryTimeout(DEADLINE_SECONDS);
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(jobOf(rs.getString(1)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading schedule " + name + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * The job of a definition as the {@code schedules} table stores it (its {@code definition} column
   * as text); an {@link IllegalStateException} when it is unreadable or this build cannot run it.
   */
  public static JobDefinition jobOf(String storedDefinition) {
    try {
      return JobSpecs.jobOf(Json.mapper().readValue(storedDefinition, ScheduleDefinition.class));
    } catch (IOException e) {
      throw new UncheckedIOException("stored definition unreadable", e);
    }
  }
}
