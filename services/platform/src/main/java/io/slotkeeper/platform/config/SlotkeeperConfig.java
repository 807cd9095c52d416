package io.slotkeeper.platform.config;

import io.slotkeeper.platform.db.Database;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The service's configuration, read once at start-up: environment first, then the optional
 * properties file named by {@code SLOTKEEPER_CONFIG_FILE} (same keys), then defaults. Every value
 * is validated here, so a bad setting stops start-up with one line that names it.
 */
public record SlotkeeperConfig(
    Optional<PostgresEndpoint> postgres,
    Optional<RedisEndpoint> redis,
    int httpPort,
    String instanceId,
    Path dataDir,
    Optional<String> clientToken,
    Optional<String> operatorToken,
    Duration idempotencyKeyTtl,
    Duration idempotencyLockTimeout,
    int commandThreads,
    int commandBatches,
    int jdbcPoolSize,
    int pgClientPoolSize,
    int taskPoolSize,
    boolean timersEnabled,
    int timerPartitions,
    Duration timerLeaseTtl,
    Optional<String> jobsFile,
    int grpcPort,
    String streamKey,
    int streamMaxLen,
    Duration streamGapTimeout,
    int httpEventLoops,
    int aggregateCacheSize,
    int metricsSchedules,
    Duration grpcKeepAlive,
    Duration grpcKeepAliveTimeout,
    ClientLimits limits,
    Map<String, String> httpTargets) {

  /**
   * What one client may hold or send: the bind address, the HTTP connection cap and timeouts, the
   * gRPC connection and stream caps, the largest gRPC message (decompressed), the live
   * subscriptions one token may hold and the new Idempotency-Keys one principal may store per hour
   * (0: no limit). See docs/operations.md#limits-on-clients.
   */
  public record ClientLimits(
      String bindAddress,
      boolean httpH2c,
      int httpMaxConnections,
      Duration httpIdleTimeout,
      Duration httpHeaderTimeout,
      Duration httpBodyTimeout,
      int grpcMaxConnections,
      int grpcMaxConcurrentStreams,
      int grpcMaxMessageBytes,
      int subscribersPerToken,
      int idempotencyKeysPerHour) {

    private static ClientLimits read(Settings s) {
      return new ClientLimits(
          s.address("SLOTKEEPER_BIND_ADDRESS", "0.0.0.0"),
          s.bool("SLOTKEEPER_HTTP_H2C", false),
          s.intRange("SLOTKEEPER_HTTP_MAX_CONNECTIONS", 768, 1, 1_000_000),
          s.duration(
              "SLOTKEEPER_HTTP_IDLE_TIMEOUT", Duration.ofSeconds(120), Duration.ofSeconds(1)),
          s.duration(
              "SLOTKEEPER_HTTP_HEADER_TIMEOUT", Duration.ofSeconds(10), Duration.ofMillis(100)),
          s.duration(
              "SLOTKEEPER_HTTP_BODY_TIMEOUT", Duration.ofSeconds(30), Duration.ofMillis(100)),
          s.intRange("SLOTKEEPER_GRPC_MAX_CONNECTIONS", 256, 1, 1_000_000),
          s.intRange("SLOTKEEPER_GRPC_MAX_CONCURRENT_STREAMS", 100, 1, 100_000),
          s.intRange("SLOTKEEPER_GRPC_MAX_MESSAGE_BYTES", 256 * 1024, 1024, 64 * 1024 * 1024),
          s.intRange("SLOTKEEPER_SUBSCRIBERS_PER_TOKEN", 100, 1, 1_000_000),
          s.intRange("SLOTKEEPER_IDEMPOTENCY_KEYS_PER_HOUR", 20_000_000, 0, 1_000_000_000));
    }
  }

  /** Aggregates kept in memory when no size is configured (the write side's default too). */
  public static final int DEFAULT_AGGREGATE_CACHE_SIZE = 10_000;

  /**
   * Schedules with /metrics series of their own when none is configured: about 50 series each, so
   * at most some 50,000 per scrape; the rest share the value {@code _other} (docs/operations.md).
   */
  public static final int DEFAULT_METRICS_SCHEDULES = 1_000;

  /** Command executor threads when none are configured. */
  public static final int DEFAULT_COMMAND_THREADS = 8;

  /**
   * Batches of commands in flight at once when none are configured (see CommandBatcher): measured
   * on 2 cores, 1 to 3 gave the same throughput, 4 and 8 less (docs/benchmarks.md).
   */
  public static final int DEFAULT_COMMAND_BATCHES = 2;

  /** The batches in flight when none are configured: the default, at most one per thread. */
  public static int defaultCommandBatches(int commandThreads) {
    return Math.min(DEFAULT_COMMAND_BATCHES, commandThreads);
  }

  /** Reads the configuration of this process. */
  public static SlotkeeperConfig fromEnvironment() {
    return from(System.getenv());
  }

  /** Reads the configuration from the given environment (and the file it may name). */
  public static SlotkeeperConfig from(Map<String, String> env) {
    Map<String, String> merged = new HashMap<>();
    String file = blankToNull(env.get("SLOTKEEPER_CONFIG_FILE"));
    if (file != null) {
      merged.putAll(readFile(file));
    }
    env.forEach(
        (k, v) -> {
          if (k.startsWith("SLOTKEEPER_") && blankToNull(v) != null) {
            merged.put(k, v);
          }
        });
    Settings s = new Settings(merged);
    int commandThreads = s.intRange("SLOTKEEPER_COMMAND_THREADS", DEFAULT_COMMAND_THREADS, 1, 256);
    return new SlotkeeperConfig(
        s.optional("SLOTKEEPER_PG_URL").map(u -> PostgresEndpoint.parse("SLOTKEEPER_PG_URL", u)),
        s.optional("SLOTKEEPER_REDIS_URL").map(u -> RedisEndpoint.parse("SLOTKEEPER_REDIS_URL", u)),
        s.port("SLOTKEEPER_HTTP_PORT", 8080),
        s.optional("SLOTKEEPER_INSTANCE_ID").orElseGet(SlotkeeperConfig::defaultInstanceId),
        Path.of(s.optional("SLOTKEEPER_DATA_DIR").orElse(".slotkeeper"))
            .toAbsolutePath()
            .normalize(),
        s.token("SLOTKEEPER_CLIENT_TOKEN"),
        s.token("SLOTKEEPER_OPERATOR_TOKEN"),
        s.duration("SLOTKEEPER_IDEMPOTENCY_TTL", Duration.ofHours(24), Duration.ofMinutes(1)),
        s.duration(
            "SLOTKEEPER_IDEMPOTENCY_LOCK_TIMEOUT", Duration.ofSeconds(30), Duration.ofSeconds(1)),
        commandThreads,
        s.intRange(
            "SLOTKEEPER_COMMAND_BATCHES", defaultCommandBatches(commandThreads), 1, commandThreads),
        // Every command thread holds a connection for its transaction; the rest is for the event
        // store's own reads (the processors' fetch). Smaller just makes commands queue for it.
        s.intRange("SLOTKEEPER_JDBC_POOL_SIZE", commandThreads + 4, 2, 500),
        s.intRange("SLOTKEEPER_PG_CLIENT_POOL_SIZE", 8, 1, 500),
        // Jobs, reports, the fulfilment flow's and the lag checks' queries: one statement each.
        s.intRange("SLOTKEEPER_TASK_POOL_SIZE", Database.TASK_POOL_SIZE, 1, 500),
        s.bool("SLOTKEEPER_TIMERS_ENABLED", true),
        // Fixed for a deployment's life: a schedule's partition follows from the count.
        s.intRange("SLOTKEEPER_TIMER_PARTITIONS", 64, 1, 4_096),
        s.duration("SLOTKEEPER_TIMER_LEASE_TTL", Duration.ofSeconds(10), Duration.ofMillis(300)),
        s.optional("SLOTKEEPER_JOBS_FILE"),
        s.port("SLOTKEEPER_GRPC_PORT", 9090),
        s.optional("SLOTKEEPER_STREAM_KEY").orElse("slotkeeper:events"),
        s.intRange("SLOTKEEPER_STREAM_MAXLEN", 100_000, 100, 1_000_000_000),
        s.duration("SLOTKEEPER_STREAM_GAP_TIMEOUT", Duration.ofSeconds(10), Duration.ofMillis(100)),
        s.intRange(
            "SLOTKEEPER_HTTP_EVENT_LOOPS",
            // Half the cores: the other half runs commands, projections and the JIT (measured on
            // 2 cores: one HTTP event loop served more than two).
            Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
            1,
            64),
        s.intRange("SLOTKEEPER_AGGREGATE_CACHE_SIZE", DEFAULT_AGGREGATE_CACHE_SIZE, 1, 10_000_000),
        s.intRange("SLOTKEEPER_METRICS_SCHEDULES", DEFAULT_METRICS_SCHEDULES, 0, 1_000_000),
        // Under the 60 s idle timeout of common load balancers and NATs; PT0S turns pings off.
        s.durationOrOff("SLOTKEEPER_GRPC_KEEPALIVE", Duration.ofSeconds(30), Duration.ofSeconds(1)),
        s.duration(
            "SLOTKEEPER_GRPC_KEEPALIVE_TIMEOUT", Duration.ofSeconds(20), Duration.ofSeconds(1)),
        ClientLimits.read(s),
        httpTargets(merged));
  }

  /**
   * The {@code SLOTKEEPER_HTTP_TARGETS_*} settings, which the delivery module reads and validates
   * at start-up (it names the variable of a bad value).
   */
  private static Map<String, String> httpTargets(Map<String, String> merged) {
    Map<String, String> out = new HashMap<>();
    merged.forEach(
        (k, v) -> {
          if (k.startsWith("SLOTKEEPER_HTTP_TARGETS_")) {
            out.put(k, v);
          }
        });
    return Map.copyOf(out);
  }

  /** The settings the jobs file loader reads (it names SLOTKEEPER_JOBS_FILE in its errors). */
  public Map<String, String> jobsFileEnvironment() {
    return jobsFile.map(f -> Map.of("SLOTKEEPER_JOBS_FILE", f)).orElse(Map.of());
  }

  /** Host name plus pid: unique per process, stable for its life, readable in logs. */
  static String defaultInstanceId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "localhost";
    }
    return host + "-" + ManagementFactory.getRuntimeMXBean().getPid();
  }

  private static Map<String, String> readFile(String file) {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(file))) {
      props.load(in);
    } catch (IOException e) {
      throw new ConfigException(
          "SLOTKEEPER_CONFIG_FILE", "cannot read " + file + ": " + e.getMessage());
    }
    Map<String, String> out = new HashMap<>();
    props.forEach((k, v) -> out.put(k.toString(), v.toString()));
    return out;
  }

  private static String blankToNull(String v) {
    return v == null || v.isBlank() ? null : v.trim();
  }

  /** Typed, validated access to the raw settings. */
  private record Settings(Map<String, String> raw) {

    Optional<String> optional(String key) {
      return Optional.ofNullable(blankToNull(raw.get(key)));
    }

    int intRange(String key, int fallback, int min, int max) {
      Optional<String> v = optional(key);
      if (v.isEmpty()) {
        return fallback;
      }
      try {
        int n = Integer.parseInt(v.get());
        if (n < min || n > max) {
          throw new ConfigException(key, "must be between " + min + " and " + max + ", got " + n);
        }
        return n;
      } catch (NumberFormatException e) {
        throw new ConfigException(key, "must be a whole number, got '" + v.get() + "'");
      }
    }

    /** A literal IPv4 or IPv6 address (no name lookups at start-up). */
    String address(String key, String fallback) {
      String v = optional(key).orElse(fallback);
      if (!v.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
        throw new ConfigException(
            key, "must be an IP address such as 0.0.0.0 or 127.0.0.1, got '" + v + "'");
      }
      return v;
    }

    int port(String key, int fallback) {
      return intRange(key, fallback, 0, 65535);
    }

    Duration duration(String key, Duration fallback, Duration min) {
      Optional<String> v = optional(key);
      if (v.isEmpty()) {
        return fallback;
      }
      Duration d;
      try {
        d = Duration.parse(v.get());
      } catch (DateTimeParseException e) {
        throw new ConfigException(
            key, "must be an ISO-8601 duration such as PT24H, got '" + v.get() + "'");
      }
      if (d.compareTo(min) < 0) {
        throw new ConfigException(key, "must be at least " + min + ", got " + d);
      }
      return d;
    }

    /** Like {@link #duration}, but zero is allowed and means "off". */
    Duration durationOrOff(String key, Duration fallback, Duration min) {
      Duration d = duration(key, fallback, Duration.ZERO);
      if (!d.isZero() && d.compareTo(min) < 0) {
        throw new ConfigException(key, "must be PT0S (off) or at least " + min + ", got " + d);
      }
      return d;
    }

    boolean bool(String key, boolean fallback) {
      Optional<String> v = optional(key);
      if (v.isEmpty()) {
        return fallback;
      }
      if (!v.get().equals("true") && !v.get().equals("false")) {
        throw new ConfigException(key, "must be true or false, got '" + v.get() + "'");
      }
      return Boolean.parseBoolean(v.get());
    }

    Optional<String> token(String key) {
      Optional<String> v = optional(key);
      v.ifPresent(
          t -> {
            if (t.length() < 16) {
              throw new ConfigException(key, "a token must be at least 16 characters long");
            }
            if (!t.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
              throw new ConfigException(key, "a token must be printable ASCII without spaces");
            }
          });
      return v;
    }
  }
}
