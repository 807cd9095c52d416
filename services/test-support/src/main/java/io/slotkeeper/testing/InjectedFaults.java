package io.slotkeeper.testing;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A real fault in PostgreSQL for tests, not a mock: a trigger refuses every event of the streams
 * listed in the table {@code fault}, so a command on such a stream fails in the database as it
 * would on a broken disk or a refused statement. Deleting the rows ({@link #CLEAR}) clears it.
 */
public final class InjectedFaults {

  /** Clears every injected fault; the trigger stays and lets everything through. */
  public static final String CLEAR = "DELETE FROM fault";

  private InjectedFaults() {}

  /** Runs the statements (a fault, or its end) on the database, one connection for all. */
  public static void apply(PostgresEndpoint db, String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
        Statement st = c.createStatement()) {
      for (String sql : statements) {
        st.execute(sql);
      }
    }
  }

  /** The statements that make PostgreSQL refuse the events of {@code stream}. */
  public static List<String> refuseEventsOf(String stream) {
    return List.of(
        "CREATE TABLE fault (stream TEXT PRIMARY KEY)",
        "INSERT INTO fault VALUES ('" + stream.replace("'", "''") + "')",
        "CREATE FUNCTION refuse_faulty() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " IF EXISTS (SELECT 1 FROM fault WHERE stream = NEW.aggregate_identifier) THEN"
            + " RAISE EXCEPTION 'injected fault for %', NEW.aggregate_identifier; END IF;"
            + " RETURN NEW; END $$",
        "CREATE TRIGGER refuse_faulty BEFORE INSERT ON domain_event_entry"
            + " FOR EACH ROW EXECUTE FUNCTION refuse_faulty()");
  }
}
