package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operator API of the jobs (timers off: every run here is asked for). */
class JobsHttpIT {

  // 00:05 in Asia/Shanghai, the daily report's slot.
  static final String REPORT_SLOT = "2026-11-28T16:05:00Z";
  static AppHarness h;

  @BeforeAll
  static void start() {
    h = new AppHarness("jobs_http", Map.of());
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void listsTheShippedJobs() {
    assertThat(h.get("/v1/jobs", AppHarness.CLIENT).statusCode()).isEqualTo(403);
    JsonArray jobs =
        new JsonObject(h.get("/v1/jobs", AppHarness.OPERATOR).body()).getJsonArray("jobs");
    assertThat(jobs.stream().map(j -> ((JsonObject) j).getString("name")))
        // By name: the order of the schedule catalog.
        .containsExactly(
            "daily-report",
            "inventory-sync",
            "order-fulfilment",
            "refund-settlement",
            "retention-cleanup");
    JsonObject report = new JsonObject(h.get("/v1/jobs/daily-report", AppHarness.OPERATOR).body());
    assertThat(report.getString("zone")).isEqualTo("Asia/Shanghai");
    assertThat(report.getJsonArray("nextSlots")).hasSize(3);
    assertThat(h.get("/v1/jobs/nope", AppHarness.OPERATOR).statusCode()).isEqualTo(404);
  }

  @Test
  void aManualRunHappensOnceAndOffScheduleSlotsAre422() {
    HttpResponse<String> first =
        h.post(
            "/v1/jobs/daily-report/runs",
            AppHarness.OPERATOR,
            "run-1",
            "{\"slot\":\"" + REPORT_SLOT + "\"}");
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    JsonObject run = new JsonObject(first.body());
    assertThat(run.getString("outcome")).isEqualTo("COMPLETED");
    assertThat(run.getBoolean("duplicate")).isFalse();
    assertThat(run.getJsonObject("counts").getLong("reports")).isEqualTo(1);

    HttpResponse<String> again =
        h.post(
            "/v1/jobs/daily-report/runs",
            AppHarness.OPERATOR,
            "run-2",
            "{\"slot\":\"" + REPORT_SLOT + "\"}");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(again.body()).getBoolean("duplicate")).isTrue();
    assertThat(h.count("SELECT count(*) FROM reports")).isEqualTo(1);

    HttpResponse<String> off =
        h.post(
            "/v1/jobs/daily-report/runs",
            AppHarness.OPERATOR,
            "run-3",
            "{\"slot\":\"2026-11-28T16:06:00Z\"}");
    assertThat(off.statusCode()).isEqualTo(422);
    assertThat(new JsonObject(off.body()).getString("detail"))
        .contains("next one is 2026-11-29T16:05:00Z");
    HttpResponse<String> bad =
        h.post(
            "/v1/jobs/daily-report/runs", AppHarness.OPERATOR, "run-4", "{\"slot\":\"yesterday\"}");
    assertThat(bad.statusCode()).isEqualTo(400);
  }

  @Test
  void backfillListsThenFiresTheRange() {
    String range = "{\"from\":\"2026-11-20T00:00:00Z\",\"to\":\"2026-11-20T02:30:00Z\"";
    HttpResponse<String> dry =
        h.post(
            "/v1/jobs/retention-cleanup/backfill",
            AppHarness.OPERATOR,
            "bf-dry",
            range + ",\"dryRun\":true}");
    assertThat(dry.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(dry.body()).getJsonArray("slots"))
        .containsExactly("2026-11-20T00:00:00Z", "2026-11-20T01:00:00Z", "2026-11-20T02:00:00Z");
    HttpResponse<String> real =
        h.post("/v1/jobs/retention-cleanup/backfill", AppHarness.OPERATOR, "bf-1", range + "}");
    assertThat(real.statusCode()).isEqualTo(200);
    JsonArray runs = new JsonObject(real.body()).getJsonArray("runs");
    assertThat(runs).hasSize(3);
    assertThat(runs.stream().map(r -> ((JsonObject) r).getString("outcome")))
        .containsOnly("COMPLETED");
    h.awaitJson(
        "/v1/jobs/retention-cleanup/runs?from=2026-11-20T00:00:00Z&to=2026-11-20T03:00:00Z",
        j ->
            j.getJsonArray("runs").size() == 3
                && j.getJsonArray("runs").getJsonObject(0).getBoolean("backfill"));
  }

  @Test
  void pauseAndResumeAreRecorded() {
    assertThat(h.post("/v1/jobs/inventory-sync/pause", AppHarness.OPERATOR, "p-1", "").statusCode())
        .isEqualTo(200);
    assertThat(
            new JsonObject(h.get("/v1/jobs/inventory-sync", AppHarness.OPERATOR).body())
                .getBoolean("paused"))
        .isTrue();
    assertThat(
            h.post("/v1/jobs/inventory-sync/resume", AppHarness.OPERATOR, "r-1", "").statusCode())
        .isEqualTo(200);
    assertThat(
            new JsonObject(h.get("/v1/jobs/inventory-sync", AppHarness.OPERATOR).body())
                .getBoolean("paused"))
        .isFalse();
    assertThat(h.post("/v1/jobs/inventory-sync/pause", AppHarness.CLIENT, "p-2", "").statusCode())
        .isEqualTo(403);
  }
}
