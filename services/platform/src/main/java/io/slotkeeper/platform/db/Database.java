package io.slotkeeper.platform.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.slotkeeper.platform.config.PostgresEndpoint;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC side of PostgreSQL: the Hikari pool of commands, a pool for the event processors'
 * transactions, a small pool for everything else on JDBC (jobs, reports, lag queries), and the
 * schema migrations.
 */
public final class Database implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Database.class);

  /**
   * Connections of the event processors: every work package (4 projections x 2 segments, the Redis
   * publisher) holds one for its batch, and coordinators claim tokens with one. Fewer than that
   * made work packages wait for a connection, and read tables fell seconds behind under load.
   */
  static final int PROCESSOR_POOL_SIZE = 16;

  /**
   * Every statement is planned for its parameters. PostgreSQL otherwise switches a prepared
   * statement to a generic plan after five executions, chosen on the table as it was then: on a
   * fresh or young database that is a sequential scan, kept while the table grows. The event
   * position lookup of every projection batch ran such a plan, 37 ms a batch at 50,000 events and
   * growing with the store, and held the read tables seconds behind the commands. For pools whose
   * statements have no fixed shape: reads, jobs and reports.
   */
  public static final Map<String, String> CUSTOM_PLANS =
      Map.of("plan_cache_mode", "force_custom_plan");

  /**
   * Plans made once per connection and statement, on pools whose every statement reaches its rows
   * through an index condition — a key, a key array ({@code = ANY}) or an indexed range (commands,
   * processors, idempotency keys). Planning each execution cost PostgreSQL about a quarter of its
   * CPU per command (~100 µs per order, pg_stat_statements). The trap of {@link #CUSTOM_PLANS} is
   * closed differently: with sequential scans ruled out, and no statement joining a table without
   * an index condition on it, a generic plan made on a tiny table is the index plan it should be on
   * a large one ({@code KeyedPlansIT}, {@code PositionLookupPlanIT}). A statement added to these
   * pools must keep to that rule.
   */
  public static final Map<String, String> KEYED_PLANS =
      Map.of("plan_cache_mode", "auto", "enable_seqscan", "off");

  /** A pool's commits do not wait for the WAL flush (see each pool for why that is safe). */
  static final Map<String, String> RELAXED_COMMIT = Map.of("synchronous_commit", "off");

  /** Connections of the pool for jobs, reports and other statements off the write path. */
  public static final int TASK_POOL_SIZE = 4;

  private final HikariDataSource dataSource;
  private final HikariDataSource processorDataSource;
  private final HikariDataSource taskDataSource;
  private final JdbcTransactionManager transactions;
  private final JdbcTransactionManager processorTransactions;

  private Database(
      HikariDataSource dataSource,
      HikariDataSource processorDataSource,
      HikariDataSource taskDataSource) {
    this.dataSource = dataSource;
    this.processorDataSource = processorDataSource;
    this.taskDataSource = taskDataSource;
    this.transactions = new JdbcTransactionManager(dataSource);
    this.processorTransactions = new JdbcTransactionManager(processorDataSource);
  }

  /** Opens the pool and migrates the schema (safe when several instances start at once). */
  public static Database open(PostgresEndpoint endpoint, int poolSize, String instanceId) {
    return open(endpoint, poolSize, TASK_POOL_SIZE, instanceId);
  }

  /** As above, with {@code taskPoolSize} connections for statements off the write path. */
  public static Database open(
      PostgresEndpoint endpoint, int poolSize, int taskPoolSize, String instanceId) {
    HikariDataSource ds =
        new HikariDataSource(config(endpoint, poolSize, instanceId, "", options(KEYED_PLANS)));
    try {
      migrate(ds);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    // A processor's transaction (read rows + token, or the Redis publisher's token) needs no WAL
    // flush of its own: lost in a PostgreSQL crash, rows and token are lost together and the
    // events are processed again. Commands keep synchronous commits.
    HikariConfig relaxed =
        config(
            endpoint,
            PROCESSOR_POOL_SIZE,
            instanceId,
            "-processors",
            options(KEYED_PLANS, RELAXED_COMMIT));
    relaxed.setMinimumIdle(2);
    HikariConfig tasks =
        config(endpoint, taskPoolSize, instanceId, "-tasks", options(CUSTOM_PLANS));
    tasks.setMinimumIdle(1);
    return new Database(ds, new HikariDataSource(relaxed), new HikariDataSource(tasks));
  }

  /**
   * PostgreSQL settings as the JDBC driver's {@code options} connection property ({@code -c a=b -c
   * c=d}).
   */
  @SafeVarargs
  public static String options(Map<String, String>... settings) {
    StringJoiner options = new StringJoiner(" ");
    for (Map<String, String> group : settings) {
      new TreeMap<>(group).forEach((name, value) -> options.add("-c " + name + "=" + value));
    }
    return options.toString();
  }

  /** {@code options}: the connection's PostgreSQL settings (see {@link #options(Map[])}). */
  private static HikariConfig config(
      PostgresEndpoint endpoint, int poolSize, String instanceId, String suffix, String options) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(endpoint.jdbcUrl());
    hc.setUsername(endpoint.user());
    hc.setPassword(endpoint.password());
    hc.setMaximumPoolSize(poolSize);
    hc.setMinimumIdle(Math.min(2, poolSize));
    hc.setPoolName("slotkeeper-jdbc" + suffix);
    hc.setConnectionTimeout(5_000);
    // Fail fast at start-up with the real cause when PostgreSQL is not there.
    hc.setInitializationFailTimeout(15_000);
    hc.addDataSourceProperty("ApplicationName", "slotkeeper-" + instanceId + suffix);
    hc.addDataSourceProperty("reWriteBatchedInserts", "true");
    hc.addDataSourceProperty("options", options);
    return hc;
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
    processorDataSource.setMetricRegistry(meterRegistry);
    taskDataSource.setMetricRegistry(meterRegistry);
  }

  /**
   * Connections for statements off the write path (jobs, reports, lag and housekeeping queries):
   * planned for their parameters, since their shapes are free (scans, joins, aggregates).
   */
  public DataSource dataSource() {
    return taskDataSource;
  }

  public JdbcTransactionManager transactions() {
    return transactions;
  }

  /**
   * Transactions of the event processors, on their own pool with {@code synchronous_commit = off}.
   * Inside one, every {@link JdbcTransactionManager} hands out its connection (the binding is per
   * thread), so the token store and projections need no change.
   */
  public JdbcTransactionManager processorTransactions() {
    return processorTransactions;
  }

  @Override
  public void close() {
    taskDataSource.close();
    processorDataSource.close();
    dataSource.close();
  }
}
