package io.slotkeeper.commands;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.Digests;
import io.slotkeeper.platform.axon.CommitQueues;
import io.slotkeeper.platform.db.UnnestColumns;
import io.slotkeeper.platform.json.Json;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.axonframework.common.jdbc.ConnectionProvider;

/**
 * The record of applied command IDs. It is read and written on the connection of the command's own
 * transaction, so a ledger row exists exactly when the command's events do.
 */
public final class CommandLedger {

  private static final String FIND =
      "SELECT command_type, aggregate_id, payload_sha256, result_type, result_json::text"
          + " FROM command_ledger WHERE command_id = ?";
  private static final String INSERT =
      "INSERT INTO command_ledger"
          + " (command_id, command_type, aggregate_id, payload_sha256, result_type, result_json)"
          + " VALUES (?, ?, ?, ?, ?, ?::jsonb)";

  // A batch's rows in one statement whatever their number (a JDBC batch is rewritten into
  // multi-row inserts of power-of-two sizes: up to 7 statements for 100 rows).
  private static final String INSERT_ALL =
      "INSERT INTO command_ledger"
          + " (command_id, command_type, aggregate_id, payload_sha256, result_type, result_json)"
          + " SELECT c, t, a, p, rt, rj::jsonb FROM unnest(?::varchar[], ?::varchar[],"
          + " ?::varchar[], ?::varchar[], ?::varchar[], ?::text[]) AS r(c, t, a, p, rt, rj)";
  private static final String[] COLUMN_TYPES = {
    "varchar", "varchar", "varchar", "varchar", "varchar", "text"
  };

  private static final String BATCH_ROWS = CommandLedger.class.getName() + ".batchRows";

  private final ConnectionProvider connections;

  public CommandLedger(ConnectionProvider connections) {
    this.connections = connections;
  }

  Optional<LedgerEntry> find(String commandId) throws SQLException {
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(FIND)) {
      ps.setString(1, commandId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new LedgerEntry(
                commandId,
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                readResult(rs.getString(4), rs.getString(5))));
      }
    }
  }

  /** Whether the command ID was applied (committed); outside a command, on its own connection. */
  public boolean applied(String commandId) {
    try {
      return find(commandId).isPresent();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the command ledger", e);
    }
  }

  /**
   * Records the command; a concurrent recorder of the same ID makes this throw. Inside a {@link
   * CommandBatch} the row is queued and the batch's rows are inserted in one statement when it
   * commits; a duplicate ID then fails the whole batch, whose commands are sent again one by one.
   */
  void record(Command command, Object result) throws SQLException {
    String[] row = row(command, result);
    if (CommandBatchHandler.inBatch()) {
      CommitQueues.current(BATCH_ROWS, ArrayList<String[]>::new, this::insertAll).add(row);
      return;
    }
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      bind(ps, row);
      ps.executeUpdate();
    }
  }

  private void insertAll(List<String[]> rows) {
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT_ALL)) {
      UnnestColumns.bind(c, ps, rows, COLUMN_TYPES);
      ps.executeUpdate();
    } catch (SQLException e) {
      SQLException cause = e.getNextException() != null ? e.getNextException() : e;
      if ("23505".equals(cause.getSQLState())) {
        throw new ConcurrentDuplicateException("(one of a batch of " + rows.size() + ")", cause);
      }
      throw new IllegalStateException("cannot record a batch of commands in the ledger", cause);
    }
  }

  private static String[] row(Command command, Object result) {
    try {
      return new String[] {
        command.commandId(),
        command.getClass().getSimpleName(),
        command.aggregateId(),
        fingerprint(command),
        result == null ? null : result.getClass().getName(),
        result == null ? null : Json.mapper().writeValueAsString(result)
      };
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("command result is not serialisable: " + e.getMessage(), e);
    }
  }

  private static void bind(PreparedStatement ps, String[] row) throws SQLException {
    for (int i = 0; i < row.length; i++) {
      ps.setString(i + 1, row[i]);
    }
  }

  /** SHA-256 of the command's JSON form: the same ID must always mean the same command. */
  static String fingerprint(Command command) {
    try {
      return Digests.sha256Hex(Json.mapper().writeValueAsBytes(command));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object readResult(String type, String json) throws SQLException {
    if (type == null || json == null) {
      return null;
    }
    try {
      return Json.mapper().readValue(json.getBytes(StandardCharsets.UTF_8), Class.forName(type));
    } catch (ClassNotFoundException | java.io.IOException e) {
      throw new SQLException("unreadable ledger result of type " + type, e);
    }
  }
}
