package io.slotkeeper.business.jobs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The few JDBC shapes the jobs need: read rows, run one statement. Each call is one transaction.
 */
final class JobSql {

  /** Maps the current row of a result set. */
  @FunctionalInterface
  interface Row<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private final DataSource dataSource;

  JobSql(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** All rows of a query, mapped. */
  <T> List<T> query(String sql, Row<T> row, Object... args) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = prepare(c, sql, args);
        ResultSet rs = ps.executeQuery()) {
      List<T> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(row.map(rs));
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("query failed: " + sql, e);
    }
  }

  /** Runs one statement (autocommit: its own transaction); returns the rows it changed. */
  int update(String sql, Object... args) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = prepare(c, sql, args)) {
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("statement failed: " + sql, e);
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... args)
      throws SQLException {
    // The pool may hand out a connection left in manual-commit mode by Axon's transactions.
    c.setAutoCommit(true);
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < args.length; i++) {
      Object arg = args[i];
      // JDBC 4.2 maps TIMESTAMPTZ to OffsetDateTime; Instant has no standard mapping.
      ps.setObject(i + 1, arg instanceof Instant instant ? instant.atOffset(ZoneOffset.UTC) : arg);
    }
    return ps;
  }
}
