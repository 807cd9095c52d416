package io.slotkeeper.platform.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The zero-configuration default: real PostgreSQL and Redis binaries, data that survives restarts.
 */
class EmbeddedServersIT {

  @Test
  void postgresKeepsItsDataAcrossRestarts() throws Exception {
    Path dataDir = Files.createTempDirectory("slotkeeper-embedded");
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(dataDir)) {
      exec(first.endpoint(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
    }
    try (EmbeddedPostgresServer second = EmbeddedPostgresServer.start(dataDir)) {
      try (Connection c = connect(second.endpoint());
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT v FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
    assertThat(Files.exists(EmbeddedPostgresServer.logFile(dataDir))).isTrue();
  }

  @Test
  void postgresAsksForItsGeneratedPassword() throws Exception {
    Path dataDir = Files.createTempDirectory("slotkeeper-embedded-password");
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dataDir)) {
      assertThat(pg.endpoint().password()).hasSizeGreaterThanOrEqualTo(32);
      assertThat(Files.getPosixFilePermissions(dataDir.resolve("postgres.password")))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      PostgresEndpoint wrong =
          new PostgresEndpoint(
              "127.0.0.1", pg.endpoint().port(), "postgres", "postgres", "not-the-password");
      assertThatThrownBy(() -> connect(wrong).close())
          .isInstanceOf(java.sql.SQLException.class)
          .hasMessageContaining("password authentication failed");
      connect(pg.endpoint()).close();
    }
  }

  @Test
  void redisAnswersOnItsPortAndStops() throws Exception {
    Path dataDir = Files.createTempDirectory("slotkeeper-embedded-redis");
    int port;
    try (EmbeddedRedisServer redis = EmbeddedRedisServer.start(dataDir)) {
      port = redis.endpoint().port();
      try (Socket s = new Socket("127.0.0.1", port)) {
        s.getOutputStream().write("PING\r\n".getBytes());
        byte[] reply = new byte[7];
        int n = s.getInputStream().read(reply);
        assertThat(new String(reply, 0, n)).isEqualTo("+PONG\r\n");
      }
    }
    assertThat(canConnect(port)).isFalse();
  }

  @Test
  void postgresComesBackOnTheSamePortWithItsData() throws Exception {
    Path dataDir = Files.createTempDirectory("slotkeeper-embedded-port");
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    int port = FreePorts.find();
    try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(dataDir, port)) {
      assertThat(first.endpoint().port()).isEqualTo(port);
      exec(first.endpoint(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)");
    }
    assertThat(canConnect(port)).isFalse();
    try (EmbeddedPostgresServer second = EmbeddedPostgresServer.start(dataDir, port);
        Connection c = connect(second.endpoint());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT v FROM kept")) {
      assertThat(second.endpoint().port()).isEqualTo(port);
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(7);
    }
  }

  @Test
  void redisRestartsOnTheSamePortWithItsData() throws Exception {
    Path dataDir = Files.createTempDirectory("slotkeeper-embedded-redis-port");
    int port = FreePorts.find();
    try (EmbeddedRedisServer first = EmbeddedRedisServer.start(dataDir, port)) {
      assertThat(first.endpoint().port()).isEqualTo(port);
      assertThat(redis(port, "SET kept 1")).isEqualTo("+OK\r\n");
    }
    assertThat(canConnect(port)).isFalse();
    try (EmbeddedRedisServer second = EmbeddedRedisServer.start(dataDir, port)) {
      assertThat(redis(port, "GET kept")).isEqualTo("$1\r\n1\r\n");
    }
  }

  private static String redis(int port, String command) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.getOutputStream().write((command + "\r\n").getBytes());
      byte[] reply = new byte[64];
      int n = s.getInputStream().read(reply);
      return new String(reply, 0, n);
    }
  }

  private static boolean canConnect(int port) {
    try (Socket s = new Socket("127.0.0.1", port)) {
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static Connection connect(PostgresEndpoint e) throws Exception {
    return DriverManager.getConnection(e.jdbcUrl(), e.user(), e.password());
  }

  private static void exec(PostgresEndpoint e, String sql) throws Exception {
    try (Connection c = connect(e);
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
