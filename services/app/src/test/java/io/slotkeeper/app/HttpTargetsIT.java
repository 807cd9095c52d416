package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.DeterministicIds;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schedules with an HTTP target through the service: the SSRF guard at creation (400 naming
 * target.url), no secret accepted or answered, and a manual run delivered through the slot runner
 * to a local endpoint, with its attempt recorded and counted.
 */
class HttpTargetsIT {

  static AppHarness h;
  static Vertx vertx;
  static int port;
  static final List<Map<String, String>> received = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    port =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  Map<String, String> headers = new java.util.HashMap<>();
                  req.headers().forEach(e -> headers.put(e.getKey().toLowerCase(), e.getValue()));
                  headers.put(":path", req.path());
                  received.add(headers);
                  req.response().setStatusCode(req.path().equals("/gone") ? 404 : 200).end("ok");
                })
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS)
            .actualPort();
    h = new AppHarness("http_targets", Map.of("SLOTKEEPER_HTTP_TARGETS_ALLOW", "127.0.0.1"));
  }

  @AfterAll
  static void stop() throws Exception {
    h.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static String schedule(String name, String target) {
    return "{\"name\":\""
        + name
        + "\",\"schedule\":{\"every\":\"PT1M\"},\"target\":"
        + target
        + "}";
  }

  static HttpResponse<String> create(String key, String body) {
    return SchedulesHttpIT.send(h, "POST", "/v1/schedules", key, null, body);
  }

  @Test
  void refusedHostsAreA400NamingTargetUrlAndCreateNothing() {
    for (String url : List.of("http://169.254.169.254/latest/meta-data", "http://10.0.0.1/hook")) {
      HttpResponse<String> r =
          create("bad-" + url.length(), schedule("refused", "{\"url\":\"" + url + "\"}"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(r.body()).contains("target.url");
    }
    HttpResponse<String> secret =
        create(
            "bad-secret",
            schedule("refused", "{\"url\":\"http://127.0.0.1:1/\",\"secret\":\"whsec_leak\"}"));
    assertThat(secret.statusCode()).isEqualTo(400);
    assertThat(secret.body()).contains("target.secret").doesNotContain("whsec_leak");
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier ="
                    + " 'schedule:refused'"))
        .isZero();
  }

  @Test
  void aManualRunIsDeliveredWithTheSlotsKeyAndRecorded() {
    String target =
        "{\"url\":\"http://127.0.0.1:"
            + port
            + "/hook\",\"body\":\"{{schedule}} {{slot}}\",\"secretRef\":\"NOT_SET_IN_TESTS\"}";
    // An unsigned target first: the secret's variable is not set in the test's environment.
    String unsigned = target.replace(",\"secretRef\":\"NOT_SET_IN_TESTS\"", "");
    HttpResponse<String> created = create("c-hook", schedule("hook", unsigned));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    JsonObject definition = new JsonObject(created.body()).getJsonObject("definition");
    assertThat(definition.getString("handler")).isEqualTo("http");
    assertThat(definition.getJsonObject("target").getString("timeout")).isEqualTo("PT10S");
    Instant slot = Instant.parse("2026-01-01T00:00:00Z");
    // Right after the create: before this instance's catalog has polled the schedule.
    HttpResponse<String> run =
        h.post(
            "/v1/schedules/hook/runs",
            AppHarness.OPERATOR,
            "run-hook",
            "{\"slot\":\"" + slot + "\"}");
    assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
    assertThat(new JsonObject(run.body()).getString("outcome")).isEqualTo("COMPLETED");
    Map<String, String> got = received.get(0);
    assertThat(got.get("idempotency-key"))
        .isEqualTo(DeterministicIds.forSlotCommand("hook", slot, "http"));
    assertThat(got).containsEntry("slotkeeper-schedule", "hook");
    assertThat(got).containsEntry("slotkeeper-slot", slot.toString());
    assertThat(got).containsEntry("slotkeeper-attempt", "1");
    assertThat(got).containsKey("slotkeeper-fencing-token");
    assertThat(
            h.queryString(
                "SELECT outcome || ':' || status FROM delivery_attempts WHERE schedule = 'hook'"))
        .isEqualTo("DELIVERED:200");
    HttpResponse<String> runs = h.get("/v1/schedules/hook/runs", AppHarness.CLIENT);
    assertThat(runs.statusCode()).as(runs.body()).isEqualTo(200);
    JsonObject delivered =
        new JsonObject(runs.body())
            .getJsonArray("runs")
            .getJsonObject(0)
            .getJsonArray("deliveries")
            .getJsonObject(0);
    assertThat(delivered.getString("outcome")).isEqualTo("DELIVERED");
    assertThat(delivered.getInteger("status")).isEqualTo(200);
    assertThat(delivered.getString("response")).isEqualTo("ok");
    assertThat(h.get("/metrics", null).body())
        .contains("slotkeeper_deliveries_total{")
        .contains("outcome=\"delivered\"");

    HttpResponse<String> gone =
        create("c-gone", schedule("gone", unsigned.replace("/hook", "/gone")));
    assertThat(gone.statusCode()).as(gone.body()).isEqualTo(201);
    HttpResponse<String> failed =
        Awaitility.await()
            .atMost(Duration.ofSeconds(15))
            .until(
                () ->
                    h.post(
                        "/v1/schedules/gone/runs",
                        AppHarness.OPERATOR,
                        "run-gone",
                        "{\"slot\":\"" + slot + "\"}"),
                r -> r.statusCode() != 404);
    assertThat(new JsonObject(failed.body()).getString("outcome")).isEqualTo("FAILED");
    assertThat(new JsonObject(failed.body()).getString("error")).contains("404");

    // A schedule may name its secret's variable; the variable's value is never stored.
    HttpResponse<String> signed = create("c-signed", schedule("signed", target));
    assertThat(signed.statusCode()).as(signed.body()).isEqualTo(201);
    assertThat(signed.body()).contains("NOT_SET_IN_TESTS").doesNotContain("\"secret\"");
  }
}
