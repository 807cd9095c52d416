package io.slotkeeper.receiver;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.testing.TestInfra;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A fresh test database with the receiver's schema and a team's table, {@code shipments}, that the
 * tests' effect writes one row to: its row count is the number of effects.
 */
final class ReceiverDatabase {

  final PGSimpleDataSource dataSource = new PGSimpleDataSource();

  ReceiverDatabase(String purpose) throws SQLException {
    PostgresEndpoint endpoint = TestInfra.freshDatabase(purpose);
    dataSource.setUrl(endpoint.jdbcUrl());
    dataSource.setUser(endpoint.user());
    dataSource.setPassword(endpoint.password());
    try (Connection c = connection();
        Statement st = c.createStatement()) {
      Schema.create(c);
      st.execute("CREATE TABLE shipments (idem_key text NOT NULL, attempt int NOT NULL)");
    }
  }

  /** The tests' effect: one shipment row, answered 200 naming the key. */
  static Response ship(Connection c, Delivery d) throws SQLException {
    try (var ps = c.prepareStatement("INSERT INTO shipments VALUES (?, ?)")) {
      ps.setString(1, d.idempotencyKey());
      ps.setInt(2, d.attempt());
      ps.executeUpdate();
    }
    return Response.ok("{\"shipped\":\"" + d.idempotencyKey() + "\"}");
  }

  Connection connection() throws SQLException {
    return dataSource.getConnection();
  }

  long count(String sql) throws SQLException {
    try (Connection c = connection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  long effects() throws SQLException {
    return count("SELECT count(*) FROM shipments");
  }
}
