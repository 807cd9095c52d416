package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.stream.StreamConsumerExample;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Redis Streams fan-out: the publisher appends every event with its ID, and the example
 * consumer, with two consumers of which one dies mid-batch, applies every event exactly once.
 */
class StreamConsumerIT {

  static final String STREAM = "slotkeeper:test:events:" + System.nanoTime();
  static AppHarness h;
  static Vertx vertx;
  static RedisAPI redis;

  @BeforeAll
  static void start() {
    h = new AppHarness("stream_consumer", Map.of("SLOTKEEPER_STREAM_KEY", STREAM));
    vertx = Vertx.vertx();
    redis =
        RedisAPI.api(
            Redis.createClient(
                vertx,
                new RedisOptions().setConnectionString(TestInfra.redis().connectionString())));
  }

  @AfterAll
  static void stop() throws Exception {
    redis.del(List.of(STREAM)).await(5, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
    h.close();
  }

  /** Thrown by the effect to play a consumer killed in the middle of its batch. */
  static final class Killed extends RuntimeException {
    Killed() {
      super("killed mid-batch");
    }
  }

  @Test
  void twoConsumersOneKilledMidBatchApplyEveryEventOnce() throws Exception {
    int n = 300;
    // The jobs file's schedules were declared at start-up: their events are in the store too.
    long before = h.count("SELECT count(*) FROM domain_event_entry");
    for (int i = 0; i < n; i++) {
      h.app
          .writeModel()
          .commands()
          .send(
              new ReceiveStock(
                  DeterministicIds.forIdempotencyKey("test.receive", "fanout-" + i),
                  "FANOUT-" + (i % 7),
                  1,
                  "test"))
          .join();
    }
    long stored = h.count("SELECT count(*) FROM domain_event_entry");
    assertThat(stored - before).isEqualTo(n);
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> xlen() >= stored);

    // The publisher's entries carry the event's ID and position, in position order.
    Response first =
        redis.xrange(List.of(STREAM, "-", "+")).await(5, TimeUnit.SECONDS).stream()
            .filter(e -> "StockReceived".equals(fields(e).get("type")))
            .findFirst()
            .orElseThrow();
    JsonObject json = new JsonObject(fields(first).get("json"));
    assertThat(fields(first).get("eventId")).isEqualTo(json.getString("eventId"));
    assertThat(
            h.count(
                "SELECT global_index FROM domain_event_entry WHERE event_identifier = '"
                    + json.getString("eventId")
                    + "'"))
        .isEqualTo(json.getLong("position"));
    assertThat(fields(first).get("type")).isEqualTo("StockReceived");
    assertThat(fields(first).get("aggregateType")).isEqualTo("Inventory");
    // The payload is the stored one, field for field.
    assertThat(json.getJsonObject("payload").getString("sku")).startsWith("FANOUT-");
    assertThat(json.getJsonObject("payload").getInteger("qty")).isEqualTo(1);
    assertThat(json.getString("causationId")).isNotBlank();
    // Batches go out as pipelines on one connection: the stream keeps store order throughout.
    List<Long> positions = new ArrayList<>();
    for (Response entry : redis.xrange(List.of(STREAM, "-", "+")).await(5, TimeUnit.SECONDS)) {
      positions.add(Long.parseLong(fields(entry).get("position")));
    }
    assertThat(positions).hasSize((int) stored).isSorted().doesNotHaveDuplicates();

    String group = "example-" + System.nanoTime();
    AtomicInteger appliedByA = new AtomicInteger();
    StreamConsumerExample.Effect recordA = StreamConsumerExample.recordEffect(group, "a");
    StreamConsumerExample a =
        new StreamConsumerExample(
            redis,
            h.db,
            STREAM,
            group,
            "a",
            Duration.ofSeconds(1),
            (tx, entry) -> {
              if (appliedByA.get() == 30) {
                throw new Killed();
              }
              recordA.apply(tx, entry);
              appliedByA.incrementAndGet();
            });
    StreamConsumerExample b =
        new StreamConsumerExample(
            redis,
            h.db,
            STREAM,
            group,
            "b",
            Duration.ofSeconds(1),
            StreamConsumerExample.recordEffect(group, "b"));
    a.ensureGroup();
    b.ensureGroup();

    // A takes a batch of 50, applies 30 (committed) and dies before acknowledging any of them.
    assertThatThrownBy(() -> a.pollOnce(50, Duration.ofMillis(100))).isInstanceOf(Killed.class);
    // B works through the rest and, once A's entries are idle, reclaims and deduplicates them.
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              b.pollOnce(50, Duration.ofMillis(100));
              return count("stream_consumer_processed", group) == stored && pending(group) == 0;
            });

    assertThat(count("stream_consumer_example_effects", group)).isEqualTo(stored);
    assertThat(
            h.count(
                "SELECT count(DISTINCT event_id) FROM stream_consumer_example_effects"
                    + " WHERE consumer_group = '"
                    + group
                    + "'"))
        .isEqualTo(stored);
    assertThat(
            h.count(
                "SELECT count(*) FROM stream_consumer_example_effects e JOIN domain_event_entry d"
                    + " ON d.event_identifier = e.event_id AND d.global_index = e.position"
                    + " WHERE e.consumer_group = '"
                    + group
                    + "'"))
        .isEqualTo(stored);
    assertThat(
            h.count(
                "SELECT count(*) FROM stream_consumer_example_effects WHERE consumer = 'a'"
                    + " AND consumer_group = '"
                    + group
                    + "'"))
        .isEqualTo(30);
  }

  private static long xlen() throws Exception {
    return redis.xlen(STREAM).await(5, TimeUnit.SECONDS).toLong();
  }

  private static long pending(String group) throws Exception {
    return redis.xpending(List.of(STREAM, group)).await(5, TimeUnit.SECONDS).get(0).toLong();
  }

  private static long count(String table, String group) {
    return h.count("SELECT count(*) FROM " + table + " WHERE consumer_group = '" + group + "'");
  }

  private static Map<String, String> fields(Response entry) {
    Response kv = entry.get(1);
    Map<String, String> out = new java.util.HashMap<>();
    for (int i = 0; i + 1 < kv.size(); i += 2) {
      out.put(kv.get(i).toString(), kv.get(i + 1).toString());
    }
    return out;
  }
}
