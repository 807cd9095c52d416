package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The event stream over HTTP: pages, filters, and a subscriber that is killed and resumes. */
class EventStreamIT {

  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("event_stream", Map.of("SLOTKEEPER_STREAM_GAP_TIMEOUT", "PT5S"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** One stream event as the subscriber saw it. */
  record Seen(long position, String eventId) {}

  @Test
  void aSubscriberKilledAndResumed20TimesSeesEveryEventOnceInOrder() throws Exception {
    long before = h.count("SELECT coalesce(max(global_index), 0) FROM domain_event_entry");
    int threads = 5;
    int perThread = 1000;
    ExecutorService writers = Executors.newFixedThreadPool(threads);
    List<Future<?>> writing = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      writing.add(
          writers.submit(
              () -> {
                for (int i = 0; i < perThread; i++) {
                  String key = "stream-" + thread + "-" + i;
                  h.app
                      .writeModel()
                      .commands()
                      .send(
                          new ReceiveStock(
                              DeterministicIds.forIdempotencyKey("test.receive", key),
                              "STREAM-" + thread + "-" + (i / 10),
                              1,
                              "test"))
                      .join();
                }
                return null;
              }));
    }

    Random random = new Random(42);
    List<Seen> seen = new ArrayList<>();
    long last = before;
    for (int round = 0; round < 20; round++) {
      // At most 200 per round: 20 rounds cannot outrun the 5,000 events being written.
      int take = 50 + random.nextInt(150);
      last = subscribe(last, round % 2 == 0, take, seen);
    }
    for (Future<?> f : writing) {
      f.get(5, TimeUnit.MINUTES);
    }
    writers.shutdown();
    long total = h.count("SELECT count(*) FROM domain_event_entry WHERE global_index > " + before);
    assertThat(total).isEqualTo(threads * perThread);
    subscribe(last, true, (int) (total - seen.size()), seen);

    List<Seen> stored = stored(before);
    assertThat(seen).hasSize(threads * perThread);
    assertThat(seen).containsExactlyElementsOf(stored);
  }

  @Test
  void pagesFilterAndRejectBadParameters() {
    for (int i = 0; i < 3; i++) {
      h.app
          .writeModel()
          .commands()
          .send(
              new ReceiveStock(
                  DeterministicIds.forIdempotencyKey("test.receive", "page-" + i),
                  "PAGE-1",
                  2,
                  "test"))
          .join();
    }
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> page("/v1/events?after=0&limit=1000&aggregateType=Inventory").size() >= 3);
    JsonArray inventory = page("/v1/events?after=0&limit=1000&aggregateType=Inventory");
    JsonObject first = inventory.getJsonObject(0);
    assertThat(first.getString("aggregateType")).isEqualTo("Inventory");
    assertThat(first.getString("type")).isEqualTo("StockReceived");
    assertThat(first.getString("eventId")).isNotBlank();
    assertThat(first.getString("causationId")).isNotBlank();
    assertThat(first.getString("correlationId")).isNotBlank();
    assertThat(first.getString("time")).isNotBlank();
    assertThat(first.getJsonObject("payload").getString("sku")).isNotBlank();
    assertThat(page("/v1/events?after=0&limit=1000&eventType=OrderPlaced")).isEmpty();
    assertThat(page("/v1/events?after=0&limit=1000&eventType=StockReceived"))
        .hasSameSizeAs(inventory);

    JsonObject small =
        new JsonObject(h.get("/v1/events?after=0&limit=2", AppHarness.CLIENT).body());
    assertThat(small.getJsonArray("events")).hasSize(2);
    assertThat(small.getLong("next"))
        .isEqualTo(small.getJsonArray("events").getJsonObject(1).getLong("position"));

    assertThat(h.get("/v1/events?after=-1", AppHarness.CLIENT).statusCode()).isEqualTo(400);
    assertThat(h.get("/v1/events?limit=1001", AppHarness.CLIENT).statusCode()).isEqualTo(400);
    assertThat(h.get("/v1/events", null).statusCode()).isEqualTo(401);
    assertThat(h.get("/v1/events/stream", null).statusCode()).isEqualTo(401);
  }

  @Test
  void aFilteredPageHoldsUpToLimitMatchingEvents() {
    long before = h.count("SELECT coalesce(max(global_index), 0) FROM domain_event_entry");
    String order =
        "{\"customerId\":\"c-1\",\"currency\":\"CNY\","
            + "\"items\":[{\"sku\":\"TEA-1\",\"qty\":1,\"unitPriceCents\":100}]}";
    assertThat(h.post("/v1/orders", AppHarness.CLIENT, "filtered-1", order).statusCode())
        .isEqualTo(201);
    // Far more events that the filter leaves out than the page's limit, between the two orders.
    for (int i = 0; i < 150; i++) {
      h.app
          .writeModel()
          .commands()
          .send(
              new ReceiveStock(
                  DeterministicIds.forIdempotencyKey("test.receive", "filtered-" + i),
                  "FILTERED-1",
                  1,
                  "test"))
          .join();
    }
    assertThat(h.post("/v1/orders", AppHarness.CLIENT, "filtered-2", order).statusCode())
        .isEqualTo(201);

    JsonObject page =
        new JsonObject(
            h.get("/v1/events?after=" + before + "&limit=2&aggregateType=Order", AppHarness.CLIENT)
                .body());
    JsonArray events = page.getJsonArray("events");
    assertThat(events).hasSize(2);
    assertThat(
            events.getJsonObject(1).getLong("position")
                - events.getJsonObject(0).getLong("position"))
        .isGreaterThan(150);
    assertThat(page.getLong("next")).isEqualTo(events.getJsonObject(1).getLong("position"));
    // One match asked for: the page ends at it, so the next page starts right after it.
    JsonObject one =
        new JsonObject(
            h.get("/v1/events?after=" + before + "&limit=1&aggregateType=Order", AppHarness.CLIENT)
                .body());
    assertThat(one.getLong("next")).isEqualTo(events.getJsonObject(0).getLong("position"));
  }

  private static JsonArray page(String path) {
    HttpResponse<String> r = h.get(path, AppHarness.CLIENT);
    assertThat(r.statusCode()).isEqualTo(200);
    return new JsonObject(r.body()).getJsonArray("events");
  }

  /**
   * Reads the SSE stream after {@code after} until {@code take} events arrived, then drops the
   * connection (the subscriber is killed). Returns the last position seen.
   */
  private static long subscribe(long after, boolean viaHeader, int take, List<Seen> seen)
      throws Exception {
    if (take <= 0) {
      return after;
    }
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(h.uri("/v1/events/stream" + (viaHeader ? "" : "?after=" + after)))
            .header("Authorization", "Bearer " + AppHarness.CLIENT);
    if (viaHeader) {
      b.header("Last-Event-ID", Long.toString(after));
    }
    HttpResponse<Stream<String>> response =
        client.send(b.build(), HttpResponse.BodyHandlers.ofLines());
    assertThat(response.statusCode()).isEqualTo(200);
    long last = after;
    int got = 0;
    try (Stream<String> lines = response.body()) {
      Iterator<String> it = lines.iterator();
      Long id = null;
      while (got < take && it.hasNext()) {
        String line = it.next();
        if (line.startsWith("id: ")) {
          id = Long.parseLong(line.substring(4));
        } else if (line.startsWith("data: ")) {
          JsonObject event = new JsonObject(line.substring(6));
          assertThat(event.getLong("position")).isEqualTo(id);
          assertThat(id).as("positions increase across resumptions").isGreaterThan(last);
          seen.add(new Seen(id, event.getString("eventId")));
          last = id;
          got++;
        }
      }
    }
    assertThat(got).isEqualTo(take);
    return last;
  }

  private static List<Seen> stored(long after) throws Exception {
    List<Seen> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(h.db.jdbcUrl(), h.db.user(), h.db.password());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT global_index, event_identifier FROM domain_event_entry"
                    + " WHERE global_index > "
                    + after
                    + " ORDER BY global_index")) {
      while (rs.next()) {
        out.add(new Seen(rs.getLong(1), rs.getString(2)));
      }
    }
    return out;
  }
}
