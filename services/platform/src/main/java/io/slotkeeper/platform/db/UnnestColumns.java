package io.slotkeeper.platform.db;

import java.lang.reflect.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Binds rows as one array per column, for a statement that reads them with {@code unnest(?::t1[],
 * ?::t2[], …)}: any number of rows in one statement and one round trip, where a JDBC batch is
 * rewritten into several multi-row statements of power-of-two sizes.
 */
public final class UnnestColumns {

  private UnnestColumns() {}

  /**
   * Binds column {@code i} of every row as parameter {@code i + 1}, an array of {@code types[i]}.
   * Each array has its values' own class ({@code String[]}, {@code Long[]}, {@code byte[][]}), so
   * the driver encodes them as such rather than as text.
   */
  public static void bind(
      Connection connection,
      PreparedStatement statement,
      List<? extends Object[]> rows,
      String... types)
      throws SQLException {
    for (int column = 0; column < types.length; column++) {
      Class<?> type = Object.class;
      for (Object[] row : rows) {
        if (row[column] != null) {
          type = row[column].getClass();
          break;
        }
      }
      Object[] values = (Object[]) Array.newInstance(type, rows.size());
      for (int i = 0; i < values.length; i++) {
        Object[] row = rows.get(i);
        values[i] = row[column];
      }
      statement.setArray(column + 1, connection.createArrayOf(types[column], values));
    }
  }
}
