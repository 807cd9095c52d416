package io.slotkeeper.testing;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import io.slotkeeper.platform.embedded.EmbeddedPostgresServer;
import io.slotkeeper.platform.embedded.EmbeddedRedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * Real PostgreSQL and Redis for tests, never mocks. In order of preference: the servers named by
 * {@code SLOTKEEPER_TEST_PG_URL} / {@code SLOTKEEPER_TEST_REDIS_URL}; the machine's own on
 * 127.0.0.1:5432 and :6379 when they answer; otherwise embedded servers started once per JVM. Every
 * test class gets a database of its own, so tests never see each other's rows.
 */
public final class TestInfra {

  private static PostgresEndpoint server;
  private static RedisEndpoint redis;

  private TestInfra() {}

  /** A new, empty database on the test PostgreSQL server. */
  public static synchronized PostgresEndpoint freshDatabase(String purpose) {
    PostgresEndpoint admin = postgresServer();
    String name =
        ("sk_"
                + purpose.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_")
                + "_"
                + UUID.randomUUID().toString().substring(0, 8))
            .replaceAll("_+", "_");
    try (Connection c =
            DriverManager.getConnection(admin.jdbcUrl(), admin.user(), admin.password());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + name);
      dropAtExit(admin, name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create test database " + name + ": " + e.getMessage(), e);
    }
    return admin.withDatabase(name);
  }

  /** Test databases live on the machine's server: drop them when the test JVM ends. */
  private static void dropAtExit(PostgresEndpoint admin, String name) {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try (Connection c =
                          DriverManager.getConnection(
                              admin.jdbcUrl(), admin.user(), admin.password());
                      Statement st = c.createStatement()) {
                    st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                  } catch (SQLException e) {
                    // best effort: a database left behind costs disk, not correctness
                  }
                }));
  }

  /** The test PostgreSQL server (its maintenance database). */
  public static synchronized PostgresEndpoint postgresServer() {
    if (server == null) {
      String url = System.getenv("SLOTKEEPER_TEST_PG_URL");
      if (url != null && !url.isBlank()) {
        server = PostgresEndpoint.parse("SLOTKEEPER_TEST_PG_URL", url);
      } else if (answers("127.0.0.1", 5432)) {
        server = new PostgresEndpoint("127.0.0.1", 5432, "postgres", "postgres", "");
      } else {
        EmbeddedPostgresServer embedded = EmbeddedPostgresServer.start(tempDir("pg"));
        Runtime.getRuntime().addShutdownHook(new Thread(embedded::close));
        server = embedded.endpoint();
      }
    }
    return server;
  }

  /** The test Redis server. */
  public static synchronized RedisEndpoint redis() {
    if (redis == null) {
      String url = System.getenv("SLOTKEEPER_TEST_REDIS_URL");
      if (url != null && !url.isBlank()) {
        redis = RedisEndpoint.parse("SLOTKEEPER_TEST_REDIS_URL", url);
      } else if (answers("127.0.0.1", 6379)) {
        redis = new RedisEndpoint("127.0.0.1", 6379, null);
      } else {
        EmbeddedRedisServer embedded = EmbeddedRedisServer.start(tempDir("redis"));
        Runtime.getRuntime().addShutdownHook(new Thread(embedded::close));
        redis = embedded.endpoint();
      }
    }
    return redis;
  }

  /** A fresh directory under the system temp directory (reachable by an unprivileged user). */
  public static Path tempDir(String purpose) {
    try {
      Path dir = Files.createTempDirectory("slotkeeper-test-" + purpose);
      dir.toFile().setReadable(true, false);
      dir.toFile().setExecutable(true, false);
      return dir;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs a query on the database and returns the first column of its first row (or null). */
  public static String queryString(PostgresEndpoint db, String sql) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** Runs a statement that returns no rows (DDL, updates). */
  public static void execute(PostgresEndpoint db, String sql) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** Runs a query returning one number. */
  public static long queryLong(PostgresEndpoint db, String sql) {
    return Long.parseLong(queryString(db, sql));
  }

  private static boolean answers(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
