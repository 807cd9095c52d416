package io.slotkeeper.platform.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.slotkeeper.platform.config.PostgresEndpoint;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The JDBC side of PostgreSQL: one Hikari pool for Axon, and the schema migrations. */
public final class Database implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Database.class);

  private final HikariDataSource dataSource;
  private final JdbcTransactionManager transactions;

  private Database(HikariDataSource dataSource) {
    this.dataSource = dataSource;
    this.transactions = new JdbcTransactionManager(dataSource);
  }

  /** Opens the pool and migrates the schema (safe when several instances start at once). */
  public static Database open(PostgresEndpoint endpoint, int poolSize, String instanceId) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(endpoint.jdbcUrl());
    hc.setUsername(endpoint.user());
    hc.setPassword(endpoint.password());
    hc.setMaximumPoolSize(poolSize);
    hc.setMinimumIdle(Math.min(2, poolSize));
    hc.setPoolName("slotkeeper-jdbc");
    hc.setConnectionTimeout(5_000);
    // Fail fast at start-up with the real cause when PostgreSQL is not there.
    hc.setInitializationFailTimeout(15_000);
    hc.addDataSourceProperty("ApplicationName", "slotkeeper-" + instanceId);
    hc.addDataSourceProperty("reWriteBatchedInserts", "true");
    HikariDataSource ds = new HikariDataSource(hc);
    try {
      migrate(ds);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    return new Database(ds);
  }

  /** Applies pending migrations; Flyway serialises concurrent runs with an advisory lock. */
  static void migrate(DataSource ds) {
    MigrateResult result =
        Flyway.configure()
            .dataSource(ds)
            .locations("classpath:db/migration")
            .baselineOnMigrate(false)
            .load()
            .migrate();
    log.info(
        "schema at version {} ({} migration(s) applied now)",
        result.targetSchemaVersion == null ? "unchanged" : result.targetSchemaVersion,
        result.migrationsExecuted);
  }

  /**
   * Publishes the pool's meters ({@code hikaricp_connections_*}) to a Micrometer registry; Hikari
   * accepts one registry, once, also on a running pool.
   */
  public void bindMetrics(Object meterRegistry) {
    dataSource.setMetricRegistry(meterRegistry);
  }

  public DataSource dataSource() {
    return dataSource;
  }

  public JdbcTransactionManager transactions() {
    return transactions;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
