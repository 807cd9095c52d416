package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.slotkeeper.timers.Partitions;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running instance with a timer firing every second, after some work (orders, replays, a rejected
 * command, manual runs, a duplicate, a backfill): its {@code /metrics} must export every metric the
 * issue names and every metric the shipped Grafana dashboard and Prometheus alert rules read; the
 * rules must pass {@code promtool check rules} where promtool is installed.
 */
class ObservabilityIT {

  static final Path INFRA = infra();
  static final String BODY =
      "{\"customerId\":\"c-1\",\"currency\":\"CNY\","
          + "\"items\":[{\"sku\":\"TEA-1\",\"qty\":2,\"unitPriceCents\":1500}]}";

  @TempDir static Path dir;
  static AppHarness h;
  static String scrape;

  @BeforeAll
  static void startAndWork() throws IOException {
    Path jobs = dir.resolve("jobs.yaml");
    Files.writeString(
        jobs,
        "jobs:\n"
            + "  - name: order-fulfilment\n"
            + "    schedule: { every: PT1S }\n"
            + "    leaseTtl: PT1S\n");
    h =
        new AppHarness(
            "observability",
            Map.of(
                "SLOTKEEPER_TIMERS_ENABLED",
                "true",
                "SLOTKEEPER_TIMER_LEASE_TTL",
                "PT2S",
                "SLOTKEEPER_JOBS_FILE",
                jobs.toString()));
    HttpResponse<String> order = h.post("/v1/orders", AppHarness.CLIENT, "obs-order-1", BODY);
    assertThat(order.statusCode()).as(order.body()).isEqualTo(201);
    assertThat(h.post("/v1/orders", AppHarness.CLIENT, "obs-order-1", BODY).statusCode())
        .isEqualTo(201); // replayed
    assertThat(
            h.post(
                    "/v1/orders",
                    AppHarness.CLIENT,
                    "obs-order-1",
                    BODY.replace("\"qty\":2", "\"qty\":3"))
                .statusCode())
        .isEqualTo(422); // mismatch
    String id = new JsonObject(order.body()).getString("orderId");
    String cancel = "/v1/orders/" + id + "/cancel";
    h.post(cancel, AppHarness.CLIENT, "obs-cancel-1", "{\"reason\":\"test\"}");
    assertThat(
            h.post(cancel, AppHarness.CLIENT, "obs-cancel-2", "{\"reason\":\"again\"}")
                .statusCode())
        .isEqualTo(409); // a rejected command
    String slot = "{\"slot\":\"2026-01-01T00:00:00Z\"}";
    String runs = "/v1/jobs/order-fulfilment/runs";
    assertThat(h.post(runs, AppHarness.OPERATOR, "obs-run-1", slot).statusCode()).isEqualTo(200);
    assertThat(h.post(runs, AppHarness.OPERATOR, "obs-run-2", slot).statusCode()).isEqualTo(200);
    assertThat(
            h.post(
                    "/v1/jobs/order-fulfilment/backfill",
                    AppHarness.OPERATOR,
                    "obs-bf-1",
                    "{\"from\":\"2026-01-02T00:00:00Z\",\"to\":\"2026-01-02T00:00:02Z\"}")
                .statusCode())
        .isEqualTo(200);
    // GC meters appear with the first collection; the service runs in this JVM, so ask for one.
    System.gc();
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              scrape = h.get("/metrics", null).body();
              Files.writeString(Path.of("target", "observability-scrape.txt"), scrape);
              return value(
                          "slotkeeper_slots_total", "job=\"order-fulfilment\"", "outcome=\"fired\"")
                      >= 2
                  && value("slotkeeper_slots_total", "outcome=\"completed\"") >= 3
                  && value("slotkeeper_lease_held", "job=\"order-fulfilment\"") == 1
                  && value("slotkeeper_slot_expected_total", "job=\"order-fulfilment\"") >= 2
                  && value("slotkeeper_event_store_head_position") > 0
                  && value("slotkeeper_projection_lag_events") >= 0
                  && scrape.contains("jvm_gc_pause_seconds_sum");
            });
    Files.writeString(
        Path.of("target", "observability-scrape.txt"), scrape, StandardCharsets.UTF_8);
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void exportsTheMetricsTheIssueNames() {
    assertThat(exported())
        .contains(
            "slotkeeper_slots_total",
            "slotkeeper_slot_lag_seconds_bucket",
            "slotkeeper_slot_duration_seconds_bucket",
            "slotkeeper_slot_expected_total",
            "slotkeeper_commands_total",
            "slotkeeper_command_duration_seconds_bucket",
            "slotkeeper_idempotency_requests_total",
            "slotkeeper_projection_lag_events",
            "slotkeeper_event_store_head_position",
            "slotkeeper_lease_held",
            "slotkeeper_lease_changes_total",
            "slotkeeper_clock_skew_seconds",
            "slotkeeper_job_stalled",
            "slotkeeper_timer_errors_total",
            "jvm_memory_used_bytes",
            "hikaricp_connections_active",
            "vertx_http_server_requests_total",
            "vertx_pool_in_use");
    for (String outcome :
        List.of("fired", "completed", "failed", "duplicate", "skipped", "missed", "backfilled")) {
      assertThat(scrape).contains("outcome=\"" + outcome + "\"");
    }
    assertThat(value("slotkeeper_slots_total", "outcome=\"duplicate\"")).isGreaterThanOrEqualTo(1);
    assertThat(value("slotkeeper_slots_total", "outcome=\"backfilled\"")).isEqualTo(3);
    assertThat(value("slotkeeper_commands_total", "outcome=\"applied\"")).isGreaterThan(0);
    assertThat(value("slotkeeper_commands_total", "outcome=\"rejected\"")).isGreaterThan(0);
    for (String result : List.of("new", "replayed", "mismatch")) {
      assertThat(value("slotkeeper_idempotency_requests_total", "result=\"" + result + "\""))
          .as(result)
          .isGreaterThan(0);
    }
  }

  @Test
  void theDashboardReadsOnlyExportedMetrics() throws IOException {
    JsonNode dashboard =
        new ObjectMapper().readTree(INFRA.resolve("grafana/dashboards/slotkeeper.json").toFile());
    Set<String> variables = new TreeSet<>();
    List<String> queries = new ArrayList<>();
    for (JsonNode v : dashboard.path("templating").path("list")) {
      variables.add(v.path("name").asText());
      if (v.path("type").asText().equals("query")) {
        JsonNode q = v.path("query");
        queries.add(q.isObject() ? q.path("query").asText() : q.asText());
      }
    }
    assertThat(variables).contains("job", "instance", "datasource");
    List<JsonNode> panels = new ArrayList<>();
    collectPanels(dashboard.path("panels"), panels);
    List<String> rows = new ArrayList<>();
    for (JsonNode p : panels) {
      if (p.path("type").asText().equals("row")) {
        rows.add(p.path("title").asText().toLowerCase());
        continue;
      }
      assertThat(p.path("targets").size()).as(p.path("title").asText()).isPositive();
      p.path("targets").forEach(t -> queries.add(t.path("expr").asText()));
    }
    assertThat(String.join(" ", rows))
        .contains("slots", "commands", "idempotency", "projections", "leases", "runtime");
    assertExported(queries, "dashboard");
  }

  @Test
  void theAlertRulesReadOnlyExportedMetrics() throws IOException {
    JsonNode rules = new YAMLMapper().readTree(INFRA.resolve("prometheus/alerts.yml").toFile());
    List<String> exprs = new ArrayList<>();
    Set<String> alerts = new TreeSet<>();
    for (JsonNode group : rules.path("groups")) {
      assertThat(group.path("name").asText()).isNotBlank();
      for (JsonNode rule : group.path("rules")) {
        assertThat(rule.path("alert").asText()).isNotBlank();
        assertThat(rule.path("expr").asText()).isNotBlank();
        assertThat(rule.path("labels").path("severity").asText()).isNotBlank();
        assertThat(rule.path("annotations").path("summary").asText()).isNotBlank();
        alerts.add(rule.path("alert").asText());
        exprs.add(rule.path("expr").asText());
      }
    }
    assertThat(alerts)
        .contains(
            "SlotkeeperJobFiredFewerSlotsThanExpected",
            "SlotkeeperSlotLagHigh",
            "SlotkeeperSlotsMissed",
            "SlotkeeperSlotsFailed",
            "SlotkeeperProjectionLagging",
            "SlotkeeperLeaseFlapping",
            "SlotkeeperClockSkew");
    assertExported(exprs, "alerts.yml");
    JsonNode prometheus =
        new YAMLMapper().readTree(INFRA.resolve("prometheus/prometheus.yml").toFile());
    assertThat(prometheus.path("rule_files").toString()).contains("alerts.yml");
    assertThat(prometheus.path("scrape_configs").get(0).path("metrics_path").asText())
        .isEqualTo("/metrics");
  }

  @Test
  void theAlertRulesPassPromtool() throws Exception {
    assumeTrue(
        new File("/usr/bin/promtool").canExecute() || onPath("promtool"),
        "promtool is not installed (apt-get install prometheus): rules checked by structure only");
    Process p =
        new ProcessBuilder(
                "promtool", "check", "rules", INFRA.resolve("prometheus/alerts.yml").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }

  @Test
  void readinessDetailsStoresProjectionsAndLeases() {
    HttpResponse<String> ready = h.get("/health/ready", null);
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    JsonObject checks = new JsonObject(ready.body()).getJsonObject("checks");
    assertThat(checks.getJsonObject("postgres").getString("status")).isEqualTo("UP");
    assertThat(checks.getJsonObject("redis").getString("status")).isEqualTo("UP");
    JsonObject projections = checks.getJsonObject("projections");
    assertThat(projections.getLong("headPosition")).isPositive();
    assertThat(projections.getJsonObject("processors").fieldNames()).isNotEmpty();
    // Timer health: the timers here are counted, none stalled or failing, so none is named.
    JsonObject timers = checks.getJsonObject("timers");
    assertThat(timers.getInteger("hosted")).as(ready.body()).isPositive();
    assertThat(timers.getInteger("held")).isEqualTo(timers.getInteger("hosted"));
    assertThat(timers.getInteger("stalled") + timers.getInteger("failing")).isZero();
    assertThat(timers.getJsonObject("problems")).isEmpty();
    // The partitions: the configured count, this instance among the live ones, and the
    // partition of the job it fires among those it holds.
    JsonObject partitions = checks.getJsonObject("partitions");
    assertThat(partitions.getInteger("count")).isEqualTo(64);
    assertThat(partitions.getInteger("liveInstances")).isGreaterThanOrEqualTo(1);
    assertThat(partitions.getJsonArray("held").getList())
        .contains(new Partitions(64).of("order-fulfilment"));
    // The job API names the holder of the job's partition.
    assertThat(
            new JsonObject(h.get("/v1/jobs/order-fulfilment", AppHarness.OPERATOR).body())
                .getString("leaseHolder"))
        .isEqualTo("test-observability");
    assertThat(new JsonObject(ready.body()).getString("status")).isEqualTo("UP");
    assertThat(new JsonObject(h.get("/health/live", null).body()).getString("status"))
        .isEqualTo("UP");
  }

  private static void assertExported(List<String> queries, String where) {
    Set<String> used = new LinkedHashSet<>();
    queries.forEach(q -> used.addAll(PromQl.metricNames(q)));
    used.remove("up"); // Prometheus' own series of each target
    assertThat(used).as(where + " uses metric names").isNotEmpty();
    Set<String> missing = new TreeSet<>(used);
    missing.removeAll(exported());
    assertThat(missing).as(where + ": metric names that /metrics does not export").isEmpty();
  }

  private static Set<String> exported() {
    Set<String> names = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int end = line.indexOf('{');
      names.add(line.substring(0, end < 0 ? line.indexOf(' ') : end));
    }
    return names;
  }

  /** The sum of the samples of {@code name} whose labels contain every matcher. */
  private static double value(String name, String... matchers) {
    double sum = 0;
    boolean found = false;
    for (String line : scrape.split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      boolean all = true;
      for (String m : matchers) {
        all &= line.contains(m);
      }
      if (all) {
        String v = line.substring(line.lastIndexOf(' ') + 1);
        double d = Double.parseDouble(v);
        if (!Double.isNaN(d)) {
          sum += d;
          found = true;
        }
      }
    }
    return found ? sum : -1;
  }

  private static void collectPanels(JsonNode panels, List<JsonNode> out) {
    for (JsonNode p : panels) {
      out.add(p);
      collectPanels(p.path("panels"), out);
    }
  }

  private static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (new File(d, tool).canExecute()) {
        return true;
      }
    }
    return false;
  }

  private static Path infra() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("infra/prometheus"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("infra/ not found above " + Path.of("").toAbsolutePath());
    }
    return p.resolve("infra");
  }
}
