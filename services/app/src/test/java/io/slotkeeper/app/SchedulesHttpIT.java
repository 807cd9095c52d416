package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schedules over HTTP on two instances of one database: the write rules (keys, versions, the file's
 * ownership), validation, the jobs file applied again by the second instance, and the second
 * instance's catalog following the first one's changes.
 */
class SchedulesHttpIT {

  static final String EVERY_MINUTE =
      "{\"name\":\"%s\",\"schedule\":{\"every\":\"PT1M\"},\"handler\":\"noop\"}";
  static AppHarness h;
  static AppHarness second;

  @BeforeAll
  static void start() {
    h = new AppHarness("schedules_http", Map.of());
    // The second instance applies the same (shipped) jobs file to the same database.
    second =
        new AppHarness(
            "schedules_http_2",
            h.db,
            // Small pools: two instances share the test PostgreSQL's connections.
            Map.of("SLOTKEEPER_JDBC_POOL_SIZE", "6", "SLOTKEEPER_PG_CLIENT_POOL_SIZE", "4"));
  }

  @AfterAll
  static void stop() {
    second.close();
    h.close();
  }

  static long events(String name) {
    return h.count(
        "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'schedule:"
            + name
            + "'");
  }

  static HttpResponse<String> send(
      AppHarness on, String method, String path, String key, String ifMatch, String body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(on.uri(path))
            .timeout(Duration.ofSeconds(20))
            .header("Authorization", "Bearer " + AppHarness.OPERATOR)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    if (ifMatch != null) {
      b.header("If-Match", ifMatch);
    }
    return on.send(b.build());
  }

  static HttpResponse<String> send(
      String method, String path, String key, String ifMatch, String body) {
    return send(h, method, path, key, ifMatch, body);
  }

  @Test
  void createChangePauseResumeDeleteWithReplaysAndVersions() {
    HttpResponse<String> created =
        send("POST", "/v1/schedules", "c-1", null, EVERY_MINUTE.formatted("s-life"));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    assertThat(created.headers().firstValue("ETag")).hasValue("\"1\"");
    assertThat(created.headers().firstValue("Location")).hasValue("/v1/schedules/s-life");
    JsonObject body = new JsonObject(created.body());
    assertThat(body.getJsonObject("definition").getJsonObject("catchUp").getString("window"))
        .isEqualTo("PT10M");
    HttpResponse<String> replay =
        send("POST", "/v1/schedules", "c-1", null, EVERY_MINUTE.formatted("s-life"));
    assertThat(replay.statusCode()).isEqualTo(201);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(replay.body()).isEqualTo(created.body());
    assertThat(events("s-life")).isEqualTo(1);
    assertThat(
            send("POST", "/v1/schedules", "c-2", null, EVERY_MINUTE.formatted("s-life"))
                .statusCode())
        .isEqualTo(409);

    // Reads work for both roles.
    h.awaitJson("/v1/schedules/s-life", j -> j.getLong("version") == 1);
    HttpResponse<String> read = h.get("/v1/schedules/s-life", AppHarness.CLIENT);
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.headers().firstValue("ETag")).hasValue("\"1\"");
    assertThat(new JsonObject(read.body()).getJsonArray("nextSlots")).hasSize(3);

    String slower = "{\"schedule\":{\"every\":\"PT5M\"},\"handler\":\"noop\"}";
    assertThat(send("PUT", "/v1/schedules/s-life", "u-0", null, slower).statusCode())
        .isEqualTo(428);
    HttpResponse<String> changed = send("PUT", "/v1/schedules/s-life", "u-1", "\"1\"", slower);
    assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
    assertThat(new JsonObject(changed.body()).getLong("version")).isEqualTo(2);
    assertThat(send("PUT", "/v1/schedules/s-life", "u-1", "\"1\"", slower).body())
        .isEqualTo(changed.body());
    HttpResponse<String> stale = send("PUT", "/v1/schedules/s-life", "u-2", "\"1\"", slower);
    assertThat(stale.statusCode()).isEqualTo(412);
    assertThat(stale.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    HttpResponse<String> same = send("PUT", "/v1/schedules/s-life", "u-3", "\"2\"", slower);
    assertThat(new JsonObject(same.body()).getBoolean("noop")).isTrue();
    assertThat(events("s-life")).isEqualTo(2);

    HttpResponse<String> paused =
        send("POST", "/v1/schedules/s-life/pause", "p-1", "\"2\"", "{\"reason\":\"maintenance\"}");
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
    assertThat(new JsonObject(paused.body()).getString("state")).isEqualTo("PAUSED");
    assertThat(
            send(
                    "POST",
                    "/v1/schedules/s-life/pause",
                    "p-1",
                    "\"2\"",
                    "{\"reason\":\"maintenance\"}")
                .body())
        .isEqualTo(paused.body());
    assertThat(send("POST", "/v1/schedules/s-life/resume", "r-0", "\"2\"", null).statusCode())
        .isEqualTo(412);
    assertThat(events("s-life")).isEqualTo(3);
    // The timers' switch follows the schedule.
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                h.count("SELECT count(*) FROM job_controls WHERE job = 's-life' AND paused") == 1);
    HttpResponse<String> resumed = send("POST", "/v1/schedules/s-life/resume", "r-1", null, null);
    assertThat(new JsonObject(resumed.body()).getString("state")).isEqualTo("ACTIVE");

    // Its series are scraped while it exists (created at zero)...
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> h.get("/metrics", null).body().contains("job=\"s-life\""));
    HttpResponse<String> deleted = send("DELETE", "/v1/schedules/s-life", "d-1", "\"4\"", null);
    assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
    assertThat(new JsonObject(deleted.body()).getString("state")).isEqualTo("DELETED");
    assertThat(send("DELETE", "/v1/schedules/s-life", "d-1", "\"4\"", null).body())
        .isEqualTo(deleted.body());
    assertThat(events("s-life")).isEqualTo(5);
    assertThat(send("POST", "/v1/schedules/s-life/pause", "p-9", null, null).statusCode())
        .isEqualTo(404);
    HttpResponse<String> again =
        send("POST", "/v1/schedules", "c-3", null, EVERY_MINUTE.formatted("s-life"));
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(new JsonObject(again.body()).getString("detail")).contains("cannot be used again");
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> h.get("/v1/schedules/s-life", AppHarness.CLIENT).statusCode() == 404);
    // ...and gone once it is deleted (a name is never used again: they would only pile up).
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> !h.get("/metrics", null).body().contains("s-life\""));
  }

  @Test
  void everyBadFieldIsNamedAndNothingIsWritten() {
    String before = h.stateFingerprint();
    HttpResponse<String> bad =
        send(
            "POST",
            "/v1/schedules",
            "bad-1",
            null,
            "{\"name\":\"s-bad\",\"schedule\":{\"cron\":\"0 * * * *\"},\"zone\":\"Mars/Base\","
                + "\"catchUp\":{\"window\":\"P90D\"},\"handler\":\"nope\",\"colour\":\"red\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(bad.body()).getJsonObject("errors").fieldNames())
        .containsExactlyInAnyOrder("schedule.cron", "zone", "catchUp.window", "handler", "colour");
    HttpResponse<String> fast =
        send(
            "POST",
            "/v1/schedules",
            "bad-2",
            null,
            "{\"name\":\"s-bad\",\"schedule\":{\"every\":\"PT0.5S\"},\"handler\":\"noop\"}");
    assertThat(new JsonObject(fast.body()).getJsonObject("errors").fieldNames())
        .containsExactly("schedule.every");
    assertThat(h.stateFingerprint()).isEqualTo(before);
    assertThat(events("s-bad")).isZero();
  }

  @Test
  void aFileManagedScheduleIsRefusedNamingTheFile() {
    h.awaitJson("/v1/schedules/daily-report", j -> "FILE".equals(j.getString("managedBy")));
    HttpResponse<String> put =
        send(
            "PUT",
            "/v1/schedules/daily-report",
            "f-1",
            null,
            "{\"schedule\":{\"every\":\"PT1H\"},\"handler\":\"daily-report\"}");
    assertThat(put.statusCode()).isEqualTo(428);
    put =
        send(
            "PUT",
            "/v1/schedules/daily-report",
            "f-2",
            "\"1\"",
            "{\"schedule\":{\"every\":\"PT1H\"},\"handler\":\"daily-report\"}");
    assertThat(put.statusCode()).isEqualTo(409);
    assertThat(new JsonObject(put.body()).getString("detail"))
        .contains("classpath:slotkeeper-jobs.yaml");
  }

  @Test
  void theJobsFileAppliedAgainChangesNothing() {
    // Both instances applied the shipped file at start: one event per job, none from the second.
    assertThat(
            h.count(
                "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier IN"
                    + " ('schedule:order-fulfilment', 'schedule:refund-settlement',"
                    + " 'schedule:inventory-sync', 'schedule:daily-report',"
                    + " 'schedule:retention-cleanup')"))
        .isEqualTo(5);
  }

  @Test
  void twoInstancesCreatingWithTheSameKeyCreateOne() throws Exception {
    String body = EVERY_MINUTE.formatted("s-race");
    CompletableFuture<HttpResponse<String>> a =
        CompletableFuture.supplyAsync(() -> send(h, "POST", "/v1/schedules", "race", null, body));
    CompletableFuture<HttpResponse<String>> b =
        CompletableFuture.supplyAsync(
            () -> send(second, "POST", "/v1/schedules", "race", null, body));
    for (HttpResponse<String> r : List.of(a.get(), b.get())) {
      // The loser waits for the winner's answer (409 while it is in flight is also allowed).
      assertThat(r.statusCode()).as(r.body()).isIn(201, 409);
    }
    assertThat(List.of(a.get().statusCode(), b.get().statusCode())).contains(201);
    assertThat(events("s-race")).isEqualTo(1);
  }

  @Test
  void theSecondInstancesCatalogSeesAChangeWithinASecond() {
    HttpResponse<String> created =
        send("POST", "/v1/schedules", "cat-1", null, EVERY_MINUTE.formatted("s-seen"));
    assertThat(created.statusCode()).isEqualTo(201);
    long start = System.nanoTime();
    // The deprecated /v1/jobs routes read the catalog.
    Awaitility.await()
        .pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(1))
        .until(() -> second.get("/v1/jobs/s-seen", AppHarness.OPERATOR).statusCode() == 200);
    System.out.printf(
        "second instance's catalog saw the schedule after %d ms%n",
        (System.nanoTime() - start) / 1_000_000);
  }

  @Test
  void aRebuiltProjectionShowsTheSameSchedules() {
    send("POST", "/v1/schedules", "rb-c", null, EVERY_MINUTE.formatted("s-rebuilt"));
    send("POST", "/v1/schedules/s-rebuilt/pause", "rb-p", null, null);
    String rows =
        "SELECT md5(string_agg(name || definition::text || version || state || managed_by"
            + " || coalesce(source, '') || effective_at, '|' ORDER BY name)) FROM schedules";
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                h.count("SELECT count(*) FROM schedules WHERE name = 's-rebuilt' AND version = 2")
                    == 1);
    String before = h.queryString(rows);
    HttpResponse<String> rebuild =
        h.post(
            "/v1/admin/projections/schedules-projection/rebuild", AppHarness.OPERATOR, "rb-1", "");
    assertThat(rebuild.statusCode()).isEqualTo(202);
    Awaitility.await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> before.equals(h.queryString(rows)));
  }
}
