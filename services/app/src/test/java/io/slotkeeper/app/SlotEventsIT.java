package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/schedules/{name}/runs/{slot}/events}: a slot's own events and those its commands
 * wrote in other aggregates, with the IDs of those commands, and nothing of another slot. The
 * inventory-sync job sends one {@code CountStock} per row of the stock feed, under an ID derived
 * from its slot.
 */
class SlotEventsIT {

  static final String JOB = "inventory-sync";
  static final String FIRST = "2026-01-02T00:00:00Z";
  static final String SECOND = "2026-01-02T00:01:00Z";

  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("slot_events", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aSlotsEventsAcrossAggregatesWithTheCommandsTheyCameFrom() {
    feed("SE-1", 40, "2026-01-01T08:00:00Z");
    run(FIRST, "se-run-1");
    feed("SE-2", 7, "2026-01-01T09:00:00Z");
    run(SECOND, "se-run-2");

    JsonObject first = slotEvents(FIRST, AppHarness.CLIENT);
    String slotId = DeterministicIds.forSlot(JOB, Instant.parse(FIRST));
    assertThat(first.getString("slotId")).isEqualTo(slotId);
    assertThat(first.getBoolean("complete")).isTrue();
    List<JsonObject> events = objects(first.getJsonArray("events"));
    assertThat(events)
        .extracting(e -> e.getString("type"))
        .containsExactly("SlotFired", "StockCounted", "SlotCompleted");
    assertThat(events).extracting(e -> e.getLong("position")).isSorted();
    // The count: its aggregate, and the command ID the slot derived for it.
    String countId =
        DeterministicIds.forSlotCommand(
            JOB, Instant.parse(FIRST), "count:SE-1:2026-01-01T08:00:00Z");
    JsonObject counted = events.get(1);
    assertThat(counted.getString("aggregateType")).isEqualTo("Inventory");
    assertThat(counted.getString("aggregateId")).isEqualTo("SE-1");
    assertThat(counted.getString("causationId")).isEqualTo(countId);
    assertThat(events.get(0).getString("aggregateId")).isEqualTo(slotId);
    // One command per event here: the fire, the count, the completion; the count's named.
    List<JsonObject> commands = objects(first.getJsonArray("commands"));
    assertThat(commands)
        .extracting(c -> c.getString("commandId"))
        .containsExactly(
            events.get(0).getString("causationId"),
            countId,
            events.get(2).getString("causationId"));
    assertThat(commands.get(1).getString("aggregateType")).isEqualTo("Inventory");
    assertThat(commands.get(1).getString("aggregateId")).isEqualTo("SE-1");
    assertThat(commands.get(1).getLong("position")).isEqualTo(counted.getLong("position"));
    assertThat(commands.get(1).getJsonArray("eventTypes").getList())
        .containsExactly("StockCounted");
    // The stock log (a read model) names the same command and slot.
    h.awaitJson(
        "/v1/inventory/SE-1/log",
        log ->
            log.getJsonArray("entries").size() == 1
                && countId.equals(
                    log.getJsonArray("entries").getJsonObject(0).getString("commandId"))
                && slotId.equals(log.getJsonArray("entries").getJsonObject(0).getString("slot")));

    // The next slot counted SE-2 (SE-1's count was not newer: ignored, no event); neither slot
    // shows the other's.
    List<JsonObject> second =
        objects(slotEvents(SECOND, AppHarness.OPERATOR).getJsonArray("events"));
    assertThat(second)
        .extracting(e -> e.getString("aggregateId"))
        .contains("SE-2")
        .doesNotContain("SE-1");
    assertThat(events).extracting(e -> e.getString("aggregateId")).doesNotContain("SE-2");
  }

  @Test
  void aSlotWithoutARecordHasNoEventsAndBadRequestsAreRefused() {
    JsonObject none = slotEvents("2026-01-03T00:00:00Z", AppHarness.CLIENT);
    assertThat(none.getJsonArray("events")).isEmpty();
    assertThat(none.getJsonArray("commands")).isEmpty();
    assertThat(none.getBoolean("complete")).isTrue();

    HttpResponse<String> bad =
        h.get("/v1/schedules/" + JOB + "/runs/yesterday/events", AppHarness.CLIENT);
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(bad.body()).contains("slot");
    assertThat(
            h.get("/v1/schedules/no-such-job/runs/" + FIRST + "/events", AppHarness.CLIENT)
                .statusCode())
        .isEqualTo(404);
    assertThat(h.get("/v1/schedules/" + JOB + "/runs/" + FIRST + "/events", null).statusCode())
        .isEqualTo(401);
  }

  private static void feed(String sku, int onHand, String asOf) {
    TestInfra.execute(
        h.db,
        "INSERT INTO inventory_feed (sku, on_hand, as_of) VALUES ('"
            + sku
            + "', "
            + onHand
            + ", '"
            + asOf
            + "')");
  }

  private static void run(String slot, String key) {
    HttpResponse<String> ran =
        h.post(
            "/v1/schedules/" + JOB + "/runs",
            AppHarness.OPERATOR,
            key,
            "{\"slot\":\"" + slot + "\"}");
    assertThat(ran.statusCode()).as(ran.body()).isEqualTo(200);
    assertThat(new JsonObject(ran.body()).getString("outcome")).isEqualTo("COMPLETED");
  }

  private static JsonObject slotEvents(String slot, String token) {
    HttpResponse<String> r = h.get("/v1/schedules/" + JOB + "/runs/" + slot + "/events", token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  private static List<JsonObject> objects(JsonArray array) {
    return array.stream().map(JsonObject.class::cast).toList();
  }
}
