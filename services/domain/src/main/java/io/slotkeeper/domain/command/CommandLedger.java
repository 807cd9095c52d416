package io.slotkeeper.domain.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.slotkeeper.events.Command;
import io.slotkeeper.platform.json.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;
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

  /** Records the command; a concurrent recorder of the same ID makes this throw. */
  void record(Command command, Object result) throws SQLException {
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setString(1, command.commandId());
      ps.setString(2, command.getClass().getSimpleName());
      ps.setString(3, command.aggregateId());
      ps.setString(4, fingerprint(command));
      ps.setString(5, result == null ? null : result.getClass().getName());
      ps.setString(6, result == null ? null : Json.mapper().writeValueAsString(result));
      ps.executeUpdate();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("command result is not serialisable: " + e.getMessage(), e);
    }
  }

  /** SHA-256 of the command's JSON form: the same ID must always mean the same command. */
  static String fingerprint(Command command) {
    try {
      byte[] json = Json.mapper().writeValueAsBytes(command);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
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
