package io.slotkeeper.platform.embedded;

import static org.assertj.core.api.Assertions.assertThat;

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
    assertThat(Files.exists(dataDir.resolve("logs").resolve("postgres.log"))).isTrue();
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
