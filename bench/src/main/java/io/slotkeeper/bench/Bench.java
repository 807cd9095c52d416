package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import io.slotkeeper.testing.TestInfra;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What every phase of the benchmark shares: the settings, this run's ID (a prefix of every job name
 * and Redis key it creates), the machine's PostgreSQL and Redis, and the service as a child process
 * against a fresh database.
 *
 * <p>Redis is shared with whoever else uses the machine, so nothing is flushed: the service's keys
 * are its job leases and fence counters ({@code slotkeeper:lease:{job}}, {@code
 * slotkeeper:fence:{job}}) and its event stream ({@code SLOTKEEPER_STREAM_KEY}); every job name and
 * the stream key carry this run's ID, and {@link #close()} deletes exactly those keys.
 */
final class Bench implements AutoCloseable {

  static final String CLIENT_TOKEN = "bench-client-token-0001";
  static final String OPERATOR_TOKEN = "bench-operator-token-0001";

  final BenchSettings settings;
  final String runId = "b" + UUID.randomUUID().toString().substring(0, 8);
  final Path logs;
  private final Set<String> redisKeys = new LinkedHashSet<>();
  private int services;

  Bench(BenchSettings settings) {
    this.settings = settings;
    this.logs = settings.logDir().resolve(runId);
  }

  /** A new database on the machine's PostgreSQL, dropped when the runner exits. */
  PostgresEndpoint freshDatabase(String purpose) {
    return TestInfra.freshDatabase("bench_" + purpose);
  }

  static RedisEndpoint redis() {
    return TestInfra.redis();
  }

  static String url(PostgresEndpoint db) {
    return "postgresql://"
        + db.user()
        + ":"
        + db.password()
        + "@"
        + db.host()
        + ":"
        + db.port()
        + "/"
        + db.database();
  }

  /** A job name unique to this run; its Redis keys are deleted at the end. */
  String jobName(String suffix) {
    String name = runId + "-" + suffix;
    redisKeys.add("slotkeeper:lease:{" + name + "}");
    redisKeys.add("slotkeeper:fence:{" + name + "}");
    return name;
  }

  /** {@code count} job names unique to this run: {@code <run>-<kind>-00042}. */
  List<String> jobNames(String kind, int count) {
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(jobName(String.format("%s-%05d", kind, i)));
    }
    return out;
  }

  /** Sleeps until {@code t} (not at all when it has passed). */
  static void sleepUntil(Instant t) {
    sleep(Math.max(0, Duration.between(Instant.now(), t).toMillis()));
  }

  /** A running service: its label, instance ID, HTTP base URL and process. */
  record Service(
      String label, String instanceId, String baseUrl, ChildProcess process, PostgresEndpoint db)
      implements AutoCloseable {

    /** Waits until {@code /health/ready} answers 200; stops the process and fails otherwise. */
    Service awaitReady(Duration within) {
      try {
        process.awaitReady(baseUrl + "/health/ready", within);
      } catch (RuntimeException e) {
        process.close();
        throw e;
      }
      log("  service %s ready in %.1f s (%s)", label, process.startSeconds(), baseUrl);
      return this;
    }

    @Override
    public void close() {
      process.close();
    }
  }

  /** Writes a jobs file under the logs folder. */
  Path jobsFile(String name, String yaml) {
    try {
      Files.createDirectories(logs);
      Path file = logs.resolve(name + ".yaml");
      Files.writeString(file, yaml);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts {@code java <service JVM options> -jar slotkeeper.jar} on {@code db} and waits until
   * ready.
   */
  Service startService(String label, PostgresEndpoint db, Path jobsFile, boolean timers) {
    return startService(label, db, jobsFile, timers, Map.of());
  }

  /** The same, with settings of the service's added or replaced ({@code SLOTKEEPER_*}). */
  Service startService(
      String label,
      PostgresEndpoint db,
      Path jobsFile,
      boolean timers,
      Map<String, String> overrides) {
    return launchService(label, db, jobsFile, timers, overrides).awaitReady(Duration.ofMinutes(3));
  }

  /**
   * Launches the service without waiting for it ({@link Service#awaitReady}), so that several
   * instances can start at once.
   */
  synchronized Service launchService(
      String label,
      PostgresEndpoint db,
      Path jobsFile,
      boolean timers,
      Map<String, String> overrides) {
    int n = ++services;
    int port = ChildProcess.freePort();
    String streamKey = runId + ":events";
    redisKeys.add(streamKey);
    Map<String, String> env = new HashMap<>();
    env.put("SLOTKEEPER_PG_URL", url(db));
    env.put("SLOTKEEPER_REDIS_URL", redis().connectionString());
    env.put("SLOTKEEPER_HTTP_PORT", Integer.toString(port));
    env.put("SLOTKEEPER_GRPC_PORT", Integer.toString(ChildProcess.freePort()));
    env.put("SLOTKEEPER_INSTANCE_ID", instanceId(n));
    env.put("SLOTKEEPER_CLIENT_TOKEN", CLIENT_TOKEN);
    env.put("SLOTKEEPER_OPERATOR_TOKEN", OPERATOR_TOKEN);
    env.put("SLOTKEEPER_JOBS_FILE", jobsFile.toAbsolutePath().toString());
    env.put("SLOTKEEPER_TIMERS_ENABLED", Boolean.toString(timers));
    env.put("SLOTKEEPER_STREAM_KEY", streamKey);
    env.put("SLOTKEEPER_STREAM_MAXLEN", "10000");
    env.put("SLOTKEEPER_LOG_FORMAT", "text");
    env.put("SLOTKEEPER_DATA_DIR", logs.resolve("data").toAbsolutePath().toString());
    env.putAll(overrides);
    ChildProcess child =
        ChildProcess.start(
            "slotkeeper (" + label + ")",
            settings.serviceJvmOptions(),
            List.of("-jar", settings.serviceJar().toString()),
            env,
            logs.resolve(n + "-" + label + ".log"));
    return new Service(label, instanceId(n), "http://127.0.0.1:" + port, child, db);
  }

  /** The instance ID of this run's n-th service: the {@code instance_id} of its slot records. */
  private String instanceId(int n) {
    return runId + "-" + n;
  }

  /** The jobs file of a service that runs no job (the command phases). */
  Path noJobs() {
    return jobsFile("no-jobs", "jobs: []\n");
  }

  // --- JDBC helpers ---------------------------------------------------------------------------

  /**
   * A connection; while the server has none free (SQLSTATE 53300: the services under test and
   * others' tests share its {@code max_connections}), tries again for up to 30 s.
   */
  static Connection connect(PostgresEndpoint db) throws SQLException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      try {
        return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
      } catch (SQLException e) {
        if (!"53300".equals(e.getSQLState()) || System.nanoTime() > deadline) {
          throw e;
        }
        sleep(500);
      }
    }
  }

  static void execute(PostgresEndpoint db, String... sql) {
    try (Connection c = connect(db);
        Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The first row of a query, each column as a double (NaN for NULL). */
  static double[] row(PostgresEndpoint db, String sql) {
    try (Connection c = connect(db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      double[] out = new double[n];
      if (!rs.next()) {
        java.util.Arrays.fill(out, Double.NaN);
        return out;
      }
      for (int i = 0; i < n; i++) {
        out[i] = rs.getDouble(i + 1);
        if (rs.wasNull()) {
          out[i] = Double.NaN;
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The first column of a query's rows, as text. */
  static List<String> column(PostgresEndpoint db, String sql) {
    try (Connection c = connect(db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  // --- misc -----------------------------------------------------------------------------------

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static void log(String format, Object... args) {
    System.out.printf("%tT %s%n", System.currentTimeMillis(), String.format(format, args));
  }

  /** Deletes this run's own Redis keys (and nothing else), with one DEL over RESP. */
  @Override
  public void close() {
    if (redisKeys.isEmpty()) {
      return;
    }
    RedisEndpoint r = redis();
    StringBuilder cmd = new StringBuilder();
    for (List<String> command :
        r.password() == null
            ? List.of(delCommand())
            : List.of(List.of("AUTH", r.password()), delCommand())) {
      cmd.append('*').append(command.size()).append("\r\n");
      for (String a : command) {
        byte[] b = a.getBytes(StandardCharsets.UTF_8);
        cmd.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
      }
    }
    try (Socket s = new Socket(r.host(), r.port())) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(cmd.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[256];
      int read = in.read(buf);
      log("redis: deleted this run's keys (%s)", new String(buf, 0, Math.max(0, read)).trim());
    } catch (IOException e) {
      log("redis: could not delete this run's keys: %s", e);
    }
  }

  private List<String> delCommand() {
    List<String> del = new ArrayList<>();
    del.add("DEL");
    del.addAll(redisKeys);
    return del;
  }
}
