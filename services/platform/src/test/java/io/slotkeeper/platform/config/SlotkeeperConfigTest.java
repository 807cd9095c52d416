package io.slotkeeper.platform.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SlotkeeperConfigTest {

  @Test
  void defaultsNeedNoConfiguration() {
    SlotkeeperConfig c = SlotkeeperConfig.from(Map.of());
    assertThat(c.postgres()).isEmpty();
    assertThat(c.redis()).isEmpty();
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.dataDir().getFileName().toString()).isEqualTo(".slotkeeper");
    assertThat(c.idempotencyKeyTtl()).isEqualTo(Duration.ofHours(24));
    assertThat(c.instanceId()).matches(".+-\\d+");
    assertThat(c.grpcKeepAlive()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.grpcKeepAliveTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(SlotkeeperConfig.from(Map.of("SLOTKEEPER_GRPC_KEEPALIVE", "PT0S")).grpcKeepAlive())
        .isZero();
  }

  @Test
  void clientLimitsHaveSafeDefaultsAndOneLineErrors() {
    SlotkeeperConfig.ClientLimits l = SlotkeeperConfig.from(Map.of()).limits();
    assertThat(l.bindAddress()).isEqualTo("0.0.0.0");
    assertThat(l.httpH2c()).isFalse();
    assertThat(l.httpMaxConnections()).isEqualTo(768);
    assertThat(l.httpIdleTimeout()).isEqualTo(Duration.ofSeconds(120));
    assertThat(l.httpHeaderTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(l.httpBodyTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(l.grpcMaxConnections()).isEqualTo(256);
    assertThat(l.grpcMaxConcurrentStreams()).isEqualTo(100);
    assertThat(l.grpcMaxMessageBytes()).isEqualTo(256 * 1024);
    assertThat(l.subscribersPerToken()).isEqualTo(100);
    assertThat(l.idempotencyKeysPerHour()).isEqualTo(20_000_000);
    assertThat(
            SlotkeeperConfig.from(Map.of("SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR", "0"))
                .limits()
                .idempotencyKeysPerHour())
        .isZero();
    assertThatThrownBy(
            () -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR", "-1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR: must be between");
    assertThat(
            SlotkeeperConfig.from(Map.of("SLOTKEEPER_BIND_ADDRESS", "127.0.0.1"))
                .limits()
                .bindAddress())
        .isEqualTo("127.0.0.1");
    assertThatThrownBy(() -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_BIND_ADDRESS", "localhost")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_BIND_ADDRESS: must be an IP address");
    assertThatThrownBy(
            () -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_HTTP_HEADER_TIMEOUT", "PT0.01S")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_HTTP_HEADER_TIMEOUT: must be at least");
    assertThatThrownBy(
            () -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_GRPC_MAX_MESSAGE_BYTES", "100")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_GRPC_MAX_MESSAGE_BYTES: must be between");
  }

  @Test
  void theCommandPoolFollowsTheCommandThreadsUnlessSet() {
    SlotkeeperConfig defaults = SlotkeeperConfig.from(Map.of());
    assertThat(defaults.jdbcPoolSize()).isEqualTo(defaults.commandThreads() + 4);
    assertThat(defaults.aggregateCacheSize()).isEqualTo(10_000);
    assertThat(SlotkeeperConfig.from(Map.of("SLOTKEEPER_COMMAND_THREADS", "30")).jdbcPoolSize())
        .isEqualTo(34);
    assertThat(
            SlotkeeperConfig.from(
                    Map.of("SLOTKEEPER_COMMAND_THREADS", "30", "SLOTKEEPER_JDBC_POOL_SIZE", "10"))
                .jdbcPoolSize())
        .isEqualTo(10);
  }

  @Test
  void theTaskPoolHasFourConnectionsUnlessSetAndAtLeastOne() {
    assertThat(SlotkeeperConfig.from(Map.of()).taskPoolSize()).isEqualTo(4);
    assertThat(SlotkeeperConfig.from(Map.of("SLOTKEEPER_TASK_POOL_SIZE", "12")).taskPoolSize())
        .isEqualTo(12);
    assertThatThrownBy(() -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_TASK_POOL_SIZE", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SLOTKEEPER_TASK_POOL_SIZE");
  }

  @Test
  void theSchedulesWithMetricSeriesOfTheirOwnAreBounded() {
    assertThat(SlotkeeperConfig.from(Map.of()).metricsSchedules()).isEqualTo(1_000);
    assertThat(
            SlotkeeperConfig.from(Map.of("SLOTKEEPER_METRICS_SCHEDULES", "0")).metricsSchedules())
        .isZero();
    assertThatThrownBy(
            () -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_METRICS_SCHEDULES", "1000001")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_METRICS_SCHEDULES: must be between 0 and 1000000");
  }

  @Test
  void timerPartitionsAndTheirLeaseTtlHaveDefaultsAndBounds() {
    SlotkeeperConfig defaults = SlotkeeperConfig.from(Map.of());
    assertThat(defaults.timerPartitions()).isEqualTo(64);
    assertThat(defaults.timerLeaseTtl()).isEqualTo(Duration.ofSeconds(10));
    SlotkeeperConfig set =
        SlotkeeperConfig.from(
            Map.of("SLOTKEEPER_TIMER_PARTITIONS", "8", "SLOTKEEPER_TIMER_LEASE_TTL", "PT2S"));
    assertThat(set.timerPartitions()).isEqualTo(8);
    assertThat(set.timerLeaseTtl()).isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_TIMER_PARTITIONS", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_TIMER_PARTITIONS: ");
    assertThatThrownBy(() -> SlotkeeperConfig.from(Map.of("SLOTKEEPER_TIMER_LEASE_TTL", "PT0.1S")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_TIMER_LEASE_TTL: ");
  }

  @Test
  void commandBatchesDefaultToTwoAndNeverExceedTheCommandThreads() {
    assertThat(SlotkeeperConfig.from(Map.of()).commandBatches()).isEqualTo(2);
    assertThat(SlotkeeperConfig.from(Map.of("SLOTKEEPER_COMMAND_THREADS", "1")).commandBatches())
        .isEqualTo(1);
    assertThat(SlotkeeperConfig.from(Map.of("SLOTKEEPER_COMMAND_BATCHES", "3")).commandBatches())
        .isEqualTo(3);
    assertThatThrownBy(
            () ->
                SlotkeeperConfig.from(
                    Map.of("SLOTKEEPER_COMMAND_THREADS", "4", "SLOTKEEPER_COMMAND_BATCHES", "5")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("SLOTKEEPER_COMMAND_BATCHES: ");
  }

  @Test
  void urlsAreParsed() {
    SlotkeeperConfig c =
        SlotkeeperConfig.from(
            Map.of(
                "SLOTKEEPER_PG_URL", "postgresql://app:s%40cret@db.local:6543/slots",
                "SLOTKEEPER_REDIS_URL", "redis://cache:6380"));
    PostgresEndpoint pg = c.postgres().orElseThrow();
    assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://db.local:6543/slots");
    assertThat(pg.user()).isEqualTo("app");
    assertThat(pg.password()).isEqualTo("s@cret");
    assertThat(pg.toString()).doesNotContain("cret");
    assertThat(c.redis().orElseThrow().connectionString()).isEqualTo("redis://cache:6380");
  }

  @ParameterizedTest
  @CsvSource({
    "SLOTKEEPER_HTTP_PORT, 70000, between 0 and 65535",
    "SLOTKEEPER_HTTP_PORT, eighty, whole number",
    "SLOTKEEPER_PG_URL, mysql://x/y, expected postgresql://",
    "SLOTKEEPER_PG_URL, postgresql://host, names no database",
    "SLOTKEEPER_REDIS_URL, http://x, expected redis://",
    "SLOTKEEPER_IDEMPOTENCY_TTL, 1 day, ISO-8601",
    "SLOTKEEPER_IDEMPOTENCY_TTL, PT1S, at least",
    "SLOTKEEPER_CLIENT_TOKEN, short, at least 16",
    "SLOTKEEPER_GRPC_KEEPALIVE, PT0.5S, PT0S (off) or at least PT1S",
    "SLOTKEEPER_GRPC_KEEPALIVE_TIMEOUT, PT0S, at least",
  })
  void invalidSettingsNameTheSetting(String key, String value, String expected) {
    assertThatThrownBy(() -> SlotkeeperConfig.from(Map.of(key, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(key + ": ")
        .hasMessageContaining(expected);
  }

  @Test
  void aFileFillsInWhatTheEnvironmentLeavesOut(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("slotkeeper.properties");
    Files.writeString(file, "SLOTKEEPER_HTTP_PORT=9000\nSLOTKEEPER_INSTANCE_ID=from-file\n");
    SlotkeeperConfig c =
        SlotkeeperConfig.from(
            Map.of(
                "SLOTKEEPER_CONFIG_FILE", file.toString(), "SLOTKEEPER_INSTANCE_ID", "from-env"));
    assertThat(c.httpPort()).isEqualTo(9000);
    assertThat(c.instanceId()).isEqualTo("from-env");
  }
}
