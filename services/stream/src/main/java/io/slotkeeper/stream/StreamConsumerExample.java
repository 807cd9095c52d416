package io.slotkeeper.stream;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Response;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An example consumer of the {@code slotkeeper:events} Redis stream whose effects are exactly once.
 *
 * <ul>
 *   <li>It reads in a <b>consumer group</b> ({@code XREADGROUP}), so several consumers share the
 *       work, and acknowledges ({@code XACK}) a batch only after all of it was applied.
 *   <li>Entries of a consumer that died mid-batch stay pending; after {@code claimIdle} any live
 *       consumer <b>reclaims</b> them ({@code XAUTOCLAIM}) and applies them.
 *   <li>Since an entry can thus arrive twice (and the publisher itself is at least once), every
 *       effect runs in one PostgreSQL transaction with an insert into {@code
 *       stream_consumer_processed (consumer_group, event_id)}; a second delivery of the same event
 *       ID finds the row and changes nothing. So the effect happens once per event.
 * </ul>
 *
 * <p>Run it with {@code java -cp slotkeeper.jar io.slotkeeper.stream.StreamConsumerExample} and the
 * service's {@code SLOTKEEPER_PG_URL} / {@code SLOTKEEPER_REDIS_URL} (plus optional {@code
 * SLOTKEEPER_STREAM_KEY}, {@code CONSUMER_GROUP}, {@code CONSUMER_NAME}). Its example effect writes
 * one row per event into {@code stream_consumer_example_effects}.
 */
public final class StreamConsumerExample {

  /** The effect of one event, run inside the transaction that records it as processed. */
  @FunctionalInterface
  public interface Effect {
    void apply(Connection tx, Entry entry) throws SQLException;
  }

  /** One stream entry: its stream ID and fields (eventId, position, type, aggregateType, …). */
  public record Entry(String streamId, Map<String, String> fields) {
    public String eventId() {
      return fields.get("eventId");
    }

    public long position() {
      return Long.parseLong(fields.get("position"));
    }
  }

  private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(10);

  private final RedisAPI redis;
  private final PostgresEndpoint pg;
  private final String stream;
  private final String group;
  private final String consumer;
  private final Duration claimIdle;
  private final Effect effect;

  public StreamConsumerExample(
      RedisAPI redis,
      PostgresEndpoint pg,
      String stream,
      String group,
      String consumer,
      Duration claimIdle,
      Effect effect) {
    this.redis = redis;
    this.pg = pg;
    this.stream = stream;
    this.group = group;
    this.consumer = consumer;
    this.claimIdle = claimIdle;
    this.effect = effect;
  }

  /** The example effect: one row per applied event. */
  public static Effect recordEffect(String group, String consumer) {
    return (tx, entry) -> {
      try (PreparedStatement ps =
          tx.prepareStatement(
              "INSERT INTO stream_consumer_example_effects"
                  + " (consumer_group, consumer, event_id, position, event_type)"
                  + " VALUES (?, ?, ?, ?, ?)")) {
        ps.setString(1, group);
        ps.setString(2, consumer);
        ps.setString(3, entry.eventId());
        ps.setLong(4, entry.position());
        ps.setString(5, entry.fields().getOrDefault("type", "?"));
        ps.executeUpdate();
      }
    };
  }

  /** Creates the consumer group (from the stream's start) unless it exists. */
  public void ensureGroup() {
    await(
        redis
            .xgroup(List.of("CREATE", stream, group, "0", "MKSTREAM"))
            .recover(
                e ->
                    String.valueOf(e.getMessage()).contains("BUSYGROUP")
                        ? Future.succeededFuture()
                        : Future.failedFuture(e)));
  }

  /**
   * One round: reclaims entries idle longer than {@code claimIdle} (a dead consumer's), or else
   * reads new ones, applies each once and acknowledges the batch. Returns how many entries it saw.
   */
  public int pollOnce(int count, Duration block) throws SQLException {
    List<Entry> batch =
        entriesOf(
            await(
                    redis.xautoclaim(
                        List.of(
                            stream,
                            group,
                            consumer,
                            Long.toString(claimIdle.toMillis()),
                            "0-0",
                            "COUNT",
                            Integer.toString(count))))
                .get(1));
    if (batch.isEmpty()) {
      Response read =
          await(
              redis.xreadgroup(
                  List.of(
                      "GROUP",
                      group,
                      consumer,
                      "COUNT",
                      Integer.toString(count),
                      "BLOCK",
                      Long.toString(block.toMillis()),
                      "STREAMS",
                      stream,
                      ">")));
      batch = read == null ? List.of() : entriesOf(streamEntries(read));
    }
    if (batch.isEmpty()) {
      return 0;
    }
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password())) {
      for (Entry entry : batch) {
        applyOnce(c, entry);
      }
    }
    List<String> ack = new ArrayList<>(List.of(stream, group));
    batch.forEach(e -> ack.add(e.streamId()));
    await(redis.xack(ack));
    return batch.size();
  }

  /** The effect and the processed mark in one transaction; a known event ID changes nothing. */
  private void applyOnce(Connection c, Entry entry) throws SQLException {
    c.setAutoCommit(false);
    try {
      int inserted;
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO stream_consumer_processed (consumer_group, event_id, position)"
                  + " VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
        ps.setString(1, group);
        ps.setString(2, entry.eventId());
        ps.setLong(3, entry.position());
        inserted = ps.executeUpdate();
      }
      if (inserted == 1) {
        effect.apply(c, entry);
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    }
  }

  /** XREADGROUP answers {stream: entries} (RESP3) or [[stream, entries]] (RESP2). */
  private Response streamEntries(Response read) {
    if (read.isMap()) {
      return read.get(stream);
    }
    for (Response s : read) {
      if (stream.equals(s.get(0).toString())) {
        return s.get(1);
      }
    }
    return null;
  }

  private static List<Entry> entriesOf(Response entries) {
    List<Entry> out = new ArrayList<>();
    if (entries == null) {
      return out;
    }
    for (Response e : entries) {
      Response kv = e.get(1);
      if (kv == null) {
        continue; // deleted (trimmed) entry
      }
      Map<String, String> fields = new HashMap<>();
      if (kv.isMap()) {
        kv.getKeys().forEach(k -> fields.put(k, kv.get(k).toString()));
      } else {
        for (int i = 0; i + 1 < kv.size(); i += 2) {
          fields.put(kv.get(i).toString(), kv.get(i + 1).toString());
        }
      }
      out.add(new Entry(e.get(0).toString(), fields));
    }
    return out;
  }

  private static <T> T await(Future<T> f) {
    try {
      return f.await(REDIS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Redis did not answer within " + REDIS_TIMEOUT, e);
    }
  }

  /** Runs the example consumer until the process is stopped. */
  public static void main(String[] args) throws Exception {
    Map<String, String> env = System.getenv();
    PostgresEndpoint pg =
        PostgresEndpoint.parse("SLOTKEEPER_PG_URL", require(env, "SLOTKEEPER_PG_URL"));
    RedisEndpoint redisEndpoint =
        RedisEndpoint.parse("SLOTKEEPER_REDIS_URL", require(env, "SLOTKEEPER_REDIS_URL"));
    String stream = env.getOrDefault("SLOTKEEPER_STREAM_KEY", RedisEventPublisher.DEFAULT_STREAM);
    String group = env.getOrDefault("CONSUMER_GROUP", "example");
    String name = env.getOrDefault("CONSUMER_NAME", "consumer-" + ProcessHandle.current().pid());
    Vertx vertx = Vertx.vertx();
    RedisAPI redis =
        RedisAPI.api(
            Redis.createClient(
                vertx, new RedisOptions().setConnectionString(redisEndpoint.connectionString())));
    StreamConsumerExample consumer =
        new StreamConsumerExample(
            redis, pg, stream, group, name, Duration.ofSeconds(30), recordEffect(group, name));
    consumer.ensureGroup();
    while (!Thread.currentThread().isInterrupted()) {
      consumer.pollOnce(100, Duration.ofSeconds(5));
    }
  }

  private static String require(Map<String, String> env, String key) {
    String v = env.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(key + " is required");
    }
    return v;
  }
}
