package io.slotkeeper.testing;

import static org.awaitility.Awaitility.await;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A fresh database with the schema, and what a test opens on it (pools, write models); closes what
 * it opened, last first.
 */
public class DatabaseHarness implements AutoCloseable {

  private final PostgresEndpoint endpoint;
  private final List<AutoCloseable> opened = new ArrayList<>();
  // Opened first so the schema exists before anything else starts.
  private final Database admin;

  public DatabaseHarness(String purpose) {
    endpoint = TestInfra.freshDatabase(purpose);
    admin = Database.open(endpoint, 4, "test-admin");
  }

  /** Closes {@code resource} with the harness (before what was opened earlier). */
  public <T extends AutoCloseable> T closing(T resource) {
    opened.add(resource);
    return resource;
  }

  /** The JDBC pools of one more client of the shared database, closed with the harness. */
  public Database database(int poolSize, String applicationName) {
    return closing(Database.open(endpoint, poolSize, applicationName));
  }

  public PostgresEndpoint endpoint() {
    return endpoint;
  }

  /** Runs a query returning one long. */
  public long queryLong(String sql) {
    return TestInfra.queryLong(endpoint, sql);
  }

  /** Runs a query returning one string. */
  public String queryString(String sql) {
    return TestInfra.queryString(endpoint, sql);
  }

  /** Waits (projections lag) until the query returns the expected string. */
  public void awaitString(String expected, String sql) {
    await().atMost(Duration.ofSeconds(20)).until(() -> expected.equals(queryString(sql)));
  }

  /** Waits (projections lag) until the query returns the expected number. */
  public void awaitLong(long expected, String sql) {
    await().atMost(Duration.ofSeconds(20)).until(() -> queryLong(sql) == expected);
  }

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    admin.close();
  }
}
