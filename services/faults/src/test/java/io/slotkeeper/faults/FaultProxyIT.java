package io.slotkeeper.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import io.slotkeeper.testing.TestInfra;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy itself, in front of the real PostgreSQL (over JDBC) and Redis (over RESP). */
class FaultProxyIT {

  private static final PostgresEndpoint DB = TestInfra.freshDatabase("fault_proxy");
  private FaultProxy pg;

  @BeforeEach
  void start() {
    pg = FaultProxy.start("pg", DB.host(), DB.port());
  }

  @AfterEach
  void stop() {
    pg.close();
  }

  private Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", DB.user());
    p.setProperty("password", DB.password());
    p.setProperty("connectTimeout", "5");
    p.setProperty("socketTimeout", "10");
    return DriverManager.getConnection(
        "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/" + DB.database(), p);
  }

  private static int one(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static long millis(ThrowingRunnable r) throws Exception {
    long t0 = System.nanoTime();
    r.run();
    return (System.nanoTime() - t0) / 1_000_000;
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void aHealthyProxyPassesQueries() throws Exception {
    try (Connection c = connect()) {
      assertThat(one(c)).isEqualTo(1);
    }
    assertThat(pg.stats().connections()).isEqualTo(1);
    assertThat(pg.stats().resets()).isZero();
  }

  @Test
  void theNthConnectionIsResetAndTheNextWorks() throws Exception {
    pg.inject(Faults.none().withResetConnection(2), 1);
    try (Connection first = connect()) {
      assertThat(one(first)).isEqualTo(1);
    }
    assertThatThrownBy(this::connect).isInstanceOf(SQLException.class);
    try (Connection third = connect()) {
      assertThat(one(third)).isEqualTo(1);
    }
    assertThat(pg.stats().resets()).isEqualTo(1);
  }

  @Test
  void aResetChunkFailsTheStatementAndItsConnection() throws Exception {
    try (Connection c = connect()) {
      pg.inject(Faults.none().withResetChunk(1), 1);
      assertThatThrownBy(() -> one(c))
          .isInstanceOf(SQLException.class)
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).startsWith("08"));
      assertThat(c.isValid(1)).isFalse();
    }
    try (Connection again = connect()) {
      assertThat(one(again)).isEqualTo(1);
    }
  }

  @Test
  void latencySlowsEveryChunk() throws Exception {
    try (Connection c = connect()) {
      long healthy = millis(() -> one(c));
      pg.inject(Faults.none().withLatency(Duration.ofMillis(150), Duration.ZERO), 1);
      // The request and its answer are each delayed.
      assertThat(millis(() -> one(c))).isGreaterThanOrEqualTo(300).isGreaterThan(healthy);
      pg.heal();
      assertThat(millis(() -> one(c))).isLessThan(150);
    }
  }

  @Test
  void aStallDelaysWithoutLosingAndHealReleasesIt() throws Exception {
    try (Connection c = connect()) {
      pg.inject(Faults.none().withStall(Duration.ofMillis(400)), 1);
      assertThat(millis(() -> assertThat(one(c)).isEqualTo(1))).isGreaterThanOrEqualTo(350);
      pg.inject(Faults.none().withStall(Duration.ofSeconds(30)), 1);
      Thread healer =
          new Thread(
              () -> {
                sleep(300);
                pg.heal();
              });
      healer.start();
      assertThat(millis(() -> assertThat(one(c)).isEqualTo(1))).isBetween(250L, 5_000L);
      healer.join();
    }
    assertThat(pg.awaitHealed(Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void aBlackholeSwallowsThenResetsTheConnectionsItCut() throws Exception {
    try (Connection idle = connect();
        Connection busy = connect()) {
      pg.inject(Faults.none().withBlackhole(Duration.ofMillis(500)), 1);
      long t = millis(() -> assertThatThrownBy(() -> one(busy)).isInstanceOf(SQLException.class));
      assertThat(t).isBetween(400L, 5_000L);
      assertThat(pg.awaitHealed(Duration.ofSeconds(1))).isFalse(); // still injected: not healed
      pg.heal();
      assertThat(pg.awaitHealed(Duration.ofSeconds(5))).isTrue();
      assertThat(one(idle)).isEqualTo(1); // it sent nothing into the hole: still open
      assertThat(pg.stats().dropped()).isPositive();
    }
  }

  @Test
  void aSeedReproducesItsShareOfResets() throws Exception {
    List<Boolean> first = resetPattern(42);
    List<Boolean> again = resetPattern(42);
    List<Boolean> other = resetPattern(43);
    assertThat(again).isEqualTo(first);
    assertThat(first).contains(true, false);
    assertThat(other).isNotEqualTo(first);
  }

  /** Which of 16 connections made one after another a 50% share of resets cuts. */
  private List<Boolean> resetPattern(long seed) {
    pg.inject(Faults.none().withResetShares(0.5, 0), seed);
    List<Boolean> out = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      try (Connection c = connect()) {
        out.add(one(c) != 1);
      } catch (SQLException e) {
        out.add(true);
      }
    }
    pg.heal();
    return out;
  }

  @Test
  void redisSpeaksThroughTheProxyAndFailsUnderAReset() throws Exception {
    RedisEndpoint redis = TestInfra.redis();
    try (FaultProxy proxy = FaultProxy.start("redis", redis.host(), redis.port())) {
      assertThat(ping(proxy)).isEqualTo("+PONG");
      proxy.inject(Faults.none().withResetChunk(2), 7); // the PING's answer
      assertThatThrownBy(() -> ping(proxy)).isInstanceOf(IOException.class);
      assertThat(ping(proxy)).isEqualTo("+PONG");
    }
  }

  private static String ping(FaultProxy proxy) throws IOException {
    try (Socket s = new Socket(proxy.host(), proxy.port())) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      byte[] buf = new byte[64];
      int n = in.read(buf);
      if (n < 0) {
        throw new IOException("closed by the proxy");
      }
      return new String(buf, 0, n, StandardCharsets.US_ASCII).trim();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
