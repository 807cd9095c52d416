package io.slotkeeper.receiver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The receiver's tables, {@code receiver_fences} and {@code receiver_deliveries}, from the one file
 * {@value #RESOURCE} (on the class path; a team with its own migration tool copies it).
 */
public final class Schema {

  /** The class-path location of the schema's SQL. */
  public static final String RESOURCE = "/io/slotkeeper/receiver/receiver-schema.sql";

  private Schema() {}

  /** Creates the tables and their index unless they exist (idempotent). */
  public static void create(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute(sql());
    }
  }

  /** The schema's SQL. */
  public static String sql() {
    try (InputStream in = Schema.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
