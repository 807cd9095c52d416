package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;

/**
 * The operator console in a real headless browser against a running service, its timers on. The
 * slots the console acts on are days old, outside every job's catch-up window, so only the console
 * runs them. What each page shows is checked against the API's answer; the browser console must
 * stay free of errors.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {

  // 00:05 in Asia/Shanghai, the daily report's slot.
  static final String REPORT_SLOT = "2026-11-28T16:05:00Z";
  static final String BACKFILL_FROM = "2026-11-20T00:00:00Z";
  static final String BACKFILL_TO = "2026-11-20T02:30:00Z";
  // An inventory-sync slot (every minute) days old, fired by hand.
  static final String SYNC_SLOT = "2026-11-20T03:00:00Z";

  // The schedule the console creates and edits, and the one it deletes.
  static final String MADE = "console-made";
  static final String GONE = "console-gone";

  // The schedule with an HTTP target, and what its receiver answers: first a 500 whose body is
  // markup (the slot page must show it as text), then a 200 longer than the 1 KiB kept of it.
  static final String HOOK = "console-hook";
  static final String FAILED_ANSWER = "<img src=x id=injected> upstream down";
  static final String LONG_ANSWER =
      "{\"ok\":true,\"note\":\"<b>not bold</b>\",\n\"pad\":\"" + "x".repeat(1500) + "\"}";

  static AppHarness h;
  static ConsoleBrowser browser;
  static HttpServer receiver;
  static final AtomicInteger hookCalls = new AtomicInteger();
  // The slot of HOOK the timers delivered (set by the delivery test).
  static Instant hookSlot;

  @BeforeAll
  static void start() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/" + HOOK,
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          boolean first = hookCalls.getAndIncrement() == 0;
          byte[] body = (first ? FAILED_ANSWER : LONG_ANSWER).getBytes(StandardCharsets.UTF_8);
          if (first) {
            exchange.getResponseHeaders().add("Retry-After", "1");
          }
          exchange.sendResponseHeaders(first ? 500 : 200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    receiver.start();
    // Timers on, as under `make run`: the pages show live runs and events. The service may call
    // the test's receiver (loopback is refused unless named exactly).
    h =
        new AppHarness(
            "console",
            Map.of(
                "SLOTKEEPER_TIMERS_ENABLED",
                "true",
                "SLOTKEEPER_HTTP_TARGETS_ALLOW",
                "127.0.0.1:" + receiver.getAddress().getPort()));
    browser = new ConsoleBrowser("http://127.0.0.1:" + h.app.httpPort());
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (h != null) {
      h.close();
    }
    receiver.stop(0);
  }

  /**
   * No error in the browser console. Two are expected and allowed, as the browser logs a failed
   * load: the sign-in asks GET /v1/admin/projections to learn the role (a client token's 403), and
   * the stale edit's 412.
   */
  @AfterEach
  void browserConsoleIsClean() {
    List<String> errors =
        browser.consoleEntries(Level.WARNING).stream()
            .filter(e -> !(e.contains("/v1/admin/projections ") && e.contains("status of 403")))
            .filter(
                e -> !(e.contains("/v1/schedules/" + MADE + " ") && e.contains("status of 412")))
            .toList();
    assertThat(errors).as("browser console").isEmpty();
  }

  @Test
  @Order(1)
  void consolePagesCarryTheirSecurityHeadersAndNeedNoToken() throws Exception {
    HttpResponse<String> page =
        h.http.send(
            HttpRequest.newBuilder(h.uri("/console/")).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<script type=\"module\" src=\"js/app.js\">");
    String csp = page.headers().firstValue("Content-Security-Policy").orElse("");
    assertThat(csp)
        .contains("script-src 'self'")
        .contains("frame-ancestors 'none'")
        .contains("default-src 'none'")
        .doesNotContain("unsafe-inline");
    assertThat(page.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    assertThat(page.headers().firstValue("Referrer-Policy")).contains("no-referrer");
    HttpResponse<String> script =
        h.http.send(
            HttpRequest.newBuilder(h.uri("/console/js/api.js")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(script.statusCode()).isEqualTo(200);
    assertThat(script.headers().firstValue("Content-Type").orElse("")).contains("javascript");
    // The one place that names the schedules' base path.
    assertThat(script.body()).contains("const SCHEDULES = '/v1/schedules';");
    // The API keeps its guard.
    assertThat(h.get("/v1/schedules", null).statusCode()).isEqualTo(401);
  }

  @Test
  @Order(2)
  void schedulesAndDurationsAreDescribedInWords() {
    browser.open("#/signin");
    Object words =
        browser.asyncScript(
            "const done = arguments[arguments.length - 1];"
                + "Promise.all([import('/console/js/words.js'), import('/console/js/dom.js')])"
                + ".then(([w, d]) => done(["
                + " w.scheduleWords('cron 0 5 0 * * ?', 'Asia/Shanghai'),"
                + " w.scheduleWords('every PT30S', 'UTC'),"
                + " w.scheduleWords('every PT1M', 'UTC'),"
                + " w.scheduleWords('every PT1H30M', 'UTC'),"
                + " w.scheduleWords('every PT0.5S', 'UTC'),"
                + " w.scheduleWords('cron 0 0 * * * *', 'UTC'),"
                + " w.scheduleWords('cron 0 */15 * * * *', 'UTC'),"
                + " w.scheduleWords('cron 0 30 9 * * MON-FRI', 'Europe/Paris'),"
                + " w.scheduleWords('cron 0 0 6 1 * ?', 'UTC'),"
                + " w.scheduleWords('cron 0 0 6 1 JAN ?', 'UTC')"
                + "].concat([0, 31, 2500, 493563000].map(ms => d.millis(ms)))))"
                + ".catch(e => done('failed: ' + e))");
    assertThat(words)
        .isEqualTo(
            List.of(
                "every day at 00:05 Asia/Shanghai",
                "every 30 seconds",
                "every minute",
                "every 1 hour 30 minutes",
                "every 500 milliseconds",
                "every hour at minute 00",
                "every 15 minutes",
                "every Monday to Friday at 09:30 Europe/Paris",
                "on the 1st of every month at 06:00 UTC",
                "cron 0 0 6 1 JAN ? (UTC)",
                "0 ms",
                "31 ms",
                "2.5 s",
                "5 d 17 h 6 min"));
    // A clock change of a dry run as the preview and the schedule page show it.
    Object dst =
        browser.asyncScript(
            "const done = arguments[arguments.length - 1];"
                + "import('/console/js/pages/diff.js').then(m => done(m.clockChangeList([{"
                + " definition: 'proposed', zone: 'Europe/Berlin', at: '2027-03-28T01:00:00Z',"
                + " kind: 'GAP', localFrom: '2027-03-28T02:00', localTo: '2027-03-28T03:00',"
                + " policy: 'SHIFT_FORWARD', slots: ['2027-03-28T01:30:00Z']}], 'x').textContent))"
                + ".catch(e => done('failed: ' + e))");
    assertThat((String) dst)
        .contains("2027-03-28 · Europe/Berlin · clocks go forward")
        .contains("local 2027-03-28 02:00 → 2027-03-28 03:00; policy SHIFT_FORWARD")
        .contains("Slots around it: ");
  }

  @Test
  @Order(3)
  void theSchedulesPageShowsWhatTheApiSays() throws Exception {
    browser.viewport(1280, 800, false);
    browser.signIn(AppHarness.OPERATOR);
    assertThat(browser.await("#who").getText()).isEqualTo("operator");
    // The one instance holds every timer partition soon after its start: each schedule names it.
    h.awaitJson(
        "/v1/schedules",
        list ->
            list.getJsonArray("schedules").stream()
                .allMatch(j -> ((JsonObject) j).getString("leaseHolder") != null));
    browser.go("#/schedules");
    browser.await("#schedules tbody tr");
    JsonArray jobs =
        new JsonObject(h.get("/v1/schedules", AppHarness.OPERATOR).body())
            .getJsonArray("schedules");
    List<WebElement> rows = browser.driver.findElements(By.cssSelector("#schedules tbody tr"));
    assertThat(rows).hasSize(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      JsonObject job = jobs.getJsonObject(i);
      JsonObject spec = job.getJsonObject("definition").getJsonObject("schedule");
      WebElement row = rows.get(i);
      assertThat(row.getAttribute("data-job")).isEqualTo(job.getString("name"));
      assertThat(row.getText())
          .contains(
              spec.containsKey("cron")
                  ? "cron " + spec.getString("cron")
                  : "every " + spec.getString("every"));
      assertThat(row.findElement(By.cssSelector(".state")).getText())
          .isEqualTo(job.getString("state").toLowerCase());
      // Who fires it: the holder of its partition's lease, and that lease's fencing token.
      assertThat(row.findElement(By.cssSelector(".owner .holder")).getText())
          .isEqualTo(job.getString("leaseHolder"))
          .isEqualTo("test-console");
      assertThat(row.findElement(By.cssSelector(".owner .token")).getText())
          .isEqualTo("token " + job.getLong("fencingToken"));
    }
    // The token is the one a schedule's own page reads, and a real one.
    for (int i = 0; i < jobs.size(); i++) {
      JsonObject job = jobs.getJsonObject(i);
      assertThat(job.getLong("fencingToken"))
          .as(job.getString("name"))
          .isPositive()
          .isEqualTo(jobJson(job.getString("name")).getLong("fencingToken"));
    }
    WebElement report =
        browser.driver.findElement(By.cssSelector("#schedules tr[data-job='daily-report']"));
    assertThat(report.findElement(By.cssSelector(".words")).getText())
        .isEqualTo("every day at 00:05 Asia/Shanghai");
    browser.type("#filter", "report");
    browser.wait.until(
        d -> d.findElements(By.cssSelector("#schedules tbody tr:not([hidden])")).size() == 1);
    browser.await("#filter").sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.BACK_SPACE);
    browser.wait.until(
        d -> d.findElements(By.cssSelector("#schedules tbody tr:not([hidden])")).size() == 5);
    // The state filter asks the API for that state only: none is paused yet.
    new org.openqa.selenium.support.ui.Select(browser.await("#state-filter"))
        .selectByValue("PAUSED");
    browser.awaitText("#view", "No schedule in this state.");
    assertThat(browser.present("#schedules tbody tr")).isFalse();
    new org.openqa.selenium.support.ui.Select(browser.await("#state-filter")).selectByValue("");
    browser.wait.until(d -> d.findElements(By.cssSelector("#schedules tbody tr")).size() == 5);
  }

  @Test
  @Order(4)
  void theKeyboardReachesASchedule() {
    browser.go("#/schedules");
    browser.await("#filter").click();
    // From the filter, Tab goes to the first schedule's link, Enter follows it.
    browser.driver.switchTo().activeElement().sendKeys(Keys.TAB);
    WebElement focused = browser.driver.switchTo().activeElement();
    assertThat(focused.getTagName()).isEqualTo("a");
    // The schedules come by name.
    assertThat(focused.getText()).isEqualTo("daily-report");
    assertThat(
            (String) browser.script("return getComputedStyle(arguments[0]).outlineStyle", focused))
        .isNotEqualTo("none");
    focused.sendKeys(Keys.ENTER);
    browser.awaitText("#view h1", "daily-report");
  }

  @Test
  @Order(5)
  void pauseThenResumeWithAReason() throws Exception {
    browser.go("#/schedules/inventory-sync");
    browser.awaitText("#state", "active");
    settled();
    long version = jobJson("inventory-sync").getLong("version");
    // Without a reason nothing is sent.
    browser.click("#pause-resume");
    browser.awaitText(".answer .problem", "reason");
    assertThat(jobJson("inventory-sync").getString("state")).isEqualTo("ACTIVE");
    browser.type("#pause-reason", "console: supplier feed down");
    browser.click("#pause-resume");
    browser.awaitText(".answer .ok", "paused");
    JsonObject paused = jobJson("inventory-sync");
    assertThat(paused.getString("state")).isEqualTo("PAUSED");
    assertThat(paused.getLong("version")).isEqualTo(version + 1);
    browser.awaitText("#state", "paused");
    browser.awaitText("#version", String.valueOf(version + 1));
    // The reason is in the schedule's event.
    String events =
        h.get(
                "/v1/events?aggregateType=Schedule&eventType=SchedulePaused&limit=1000",
                AppHarness.OPERATOR)
            .body();
    assertThat(events).contains("console: supplier feed down");
    assertThat(browser.driver.findElement(By.id("pause-resume")).getText()).isEqualTo("Resume");
    browser.type("#pause-reason", "console: feed back");
    browser.click("#pause-resume");
    browser.awaitText(".answer .ok", "active");
    assertThat(jobJson("inventory-sync").getString("state")).isEqualTo("ACTIVE");
    browser.awaitText("#state", "active");
    // A file's schedule: pause and resume here, edit and delete in the file.
    assertThat(browser.await("#managed-note").getText()).contains("jobs file");
    assertThat(browser.await("#edit").isEnabled()).isFalse();
    assertThat(browser.await("#delete").isEnabled()).isFalse();
  }

  @Test
  @Order(8)
  void createThenEditWithTheDryRunPreview() throws Exception {
    browser.go("#/schedules");
    browser.click("#new-schedule");
    browser.type("#def-name", MADE);
    browser.type("#def-expr", "PT10M");
    browser.type("#def-handler", "noop");
    browser.type("#def-hours", "2");
    browser.click("#preview-button");
    browser.awaitText("#preview-summary", "Nothing was written");
    List<String> proposed = slots("#diff-proposed li");
    // Two hours of a ten-minute interval, all on the interval.
    assertThat(proposed).hasSizeBetween(12, 13).allMatch(s -> s.matches(".*T\\d\\d:\\d0:00Z"));
    assertThat(h.get("/v1/schedules/" + MADE, AppHarness.OPERATOR).statusCode()).isEqualTo(404);
    browser.screenshot("schedule-create");
    browser.click("#apply");
    browser.awaitText("#apply-result", "created: version 1");
    JsonObject made = jobJson(MADE);
    assertThat(made.getString("managedBy")).isEqualTo("API");
    assertThat(made.getLong("version")).isEqualTo(1);

    // The runs routes know a schedule as soon as it is written (they read the read table).
    assertThat(
            h.post(
                    "/v1/schedules/" + MADE + "/backfill",
                    AppHarness.OPERATOR,
                    "catalog-" + System.nanoTime(),
                    new JsonObject()
                        .put("from", Instant.now().minusSeconds(3600).toString())
                        .put("to", Instant.now().toString())
                        .put("dryRun", true)
                        .encode())
                .statusCode())
        .isEqualTo(200);
    browser.go("#/schedules/" + MADE);
    browser.awaitText("#managed-by", "the API");
    browser.awaitText("#ahead-dst", "No clock change in UTC");
    settled();
    browser.click("#edit");
    browser.awaitText("#view h1", "Edit " + MADE);
    browser.type("#def-expr", "PT20M");
    browser.type("#def-hours", "2");
    browser.click("#preview-button");
    browser.awaitText("#preview-summary", "Nothing was written");
    List<String> current = slots("#diff-current li");
    List<String> next = slots("#diff-proposed li");
    assertThat(current).hasSizeBetween(12, 13);
    assertThat(next).hasSizeBetween(6, 7);
    // Every other current slot is no more; the proposed ones are all current ones.
    assertThat(browser.driver.findElements(By.cssSelector("#diff-current li.gone")))
        .hasSizeBetween(6, 7);
    assertThat(current).containsAll(next);
    assertThat(jobJson(MADE).getLong("version")).isEqualTo(1);
    browser.script("document.getElementById('preview-summary').scrollIntoView()");
    browser.screenshot("schedule-edit");
    browser.click("#apply");
    browser.awaitText("#apply-result", "changed: version 2");
    JsonObject changed = jobJson(MADE);
    assertThat(changed.getLong("version")).isEqualTo(2);
    assertThat(changed.getJsonObject("definition").getJsonObject("schedule").getString("every"))
        .isEqualTo("PT20M");
  }

  @Test
  @Order(9)
  void aStaleEditIsRefusedWithChangedMeanwhile() throws Exception {
    // The page reads the schedule again: version 2.
    browser.go("#/schedules/" + MADE);
    browser.awaitText("#version", "2");
    settled();
    browser.click("#edit");
    browser.awaitText("#view", "Version 2");
    browser.type("#def-expr", "PT30M");
    browser.click("#preview-button");
    browser.awaitText("#preview-summary", "Nothing was written");
    // Someone else changes it meanwhile (a pause is a new version).
    assertThat(
            SchedulesHttpIT.send(
                    h,
                    "POST",
                    "/v1/schedules/" + MADE + "/pause",
                    "it-stale-1",
                    null,
                    "{\"reason\":\"meanwhile\"}")
                .statusCode())
        .isEqualTo(200);
    browser.click("#apply");
    browser.awaitText("#stale", "Changed meanwhile: reload");
    JsonObject after = jobJson(MADE);
    assertThat(after.getLong("version")).isEqualTo(3);
    assertThat(after.getJsonObject("definition").getJsonObject("schedule").getString("every"))
        .isEqualTo("PT20M");
  }

  @Test
  @Order(10)
  void deleteAsksFirst() throws Exception {
    assertThat(
            SchedulesHttpIT.send(
                    h,
                    "POST",
                    "/v1/schedules",
                    "it-gone-1",
                    null,
                    "{\"name\":\""
                        + GONE
                        + "\",\"schedule\":{\"every\":\"PT1H\"},\"handler\":\"noop\"}")
                .statusCode())
        .isEqualTo(201);
    // The schedules read model follows the write within a second.
    browser.wait.until(
        d -> h.get("/v1/schedules/" + GONE, AppHarness.OPERATOR).statusCode() == 200);
    browser.go("#/schedules/" + GONE);
    browser.awaitText("#version", "1");
    settled();
    // Delete asks first.
    assertThat(browser.driver.findElement(By.id("delete-box")).isDisplayed()).isFalse();
    browser.click("#delete");
    browser.type("#delete-reason", "console: made by mistake");
    browser.click("#delete-confirm");
    browser.awaitText("#delete-result", "deleted");
    browser.wait.until(
        d -> h.get("/v1/schedules?state=DELETED", AppHarness.OPERATOR).body().contains(GONE));
    // The deleted filter lists it (and asks nothing more of it: the API answers 404 there).
    browser.go("#/schedules");
    browser.await("#schedules");
    new org.openqa.selenium.support.ui.Select(browser.await("#state-filter"))
        .selectByValue("DELETED");
    browser.awaitText("#schedules tr[data-job='" + GONE + "'] .state", "deleted");
  }

  @Test
  @Order(6)
  void aSlotTriggeredTwiceRunsOnceAndTheRetryIsAReplay() throws Exception {
    browser.go("#/schedules/daily-report");
    settled();
    browser.type("#trigger-slot", REPORT_SLOT);
    browser.click("#trigger");
    browser.awaitText("#trigger-result", "ran: completed");
    assertThat(browser.driver.findElement(By.cssSelector(".answer .key")).getText())
        .contains("new answer");
    browser.click("#trigger");
    browser.awaitText("#trigger-result", "Duplicate");
    // The same click again (its key): the service replays the answer it gave.
    browser.click(".answer [data-role=retry]");
    browser.awaitText(".answer .key", "replayed");
    assertThat(browser.driver.findElement(By.id("trigger-result")).getText()).contains("Duplicate");
    assertThat(
            h.count(
                "SELECT count(*) FROM reports WHERE nominal = '" + REPORT_SLOT + "'::timestamptz"))
        .isEqualTo(1);
    JsonArray runs =
        new JsonObject(
                h.get(
                        "/v1/schedules/daily-report/runs?from="
                            + REPORT_SLOT
                            + "&to="
                            + REPORT_SLOT,
                        AppHarness.OPERATOR)
                    .body())
            .getJsonArray("runs");
    assertThat(runs).hasSize(1);
    // The runs table follows the answer: the slot's row, as the runs route gives it.
    assertThat(completedRunRow(REPORT_SLOT))
        .contains("completed")
        .contains("backfill")
        .contains(runs.getJsonObject(0).getString("instanceId"));
    browser.script("document.getElementById('trigger-slot').scrollIntoView()");
    browser.screenshot("schedule-trigger");

    // The slot page shows the ledger's record of it, its commands and its events, as the API.
    JsonObject run = runs.getJsonObject(0);
    browser.go("#/slots/daily-report/" + REPORT_SLOT);
    browser.awaitText("#slot-id", run.getString("slotId"));
    assertThat(browser.driver.findElement(By.id("slot-status")).getText()).isEqualTo("completed");
    browser.awaitText("#slot-events", "events of this slot");
    JsonObject caused = slotEvents("daily-report", REPORT_SLOT);
    assertThat(attributes("#slot-events tbody tr", "data-position"))
        .isNotEmpty()
        .isEqualTo(values(caused.getJsonArray("events"), "position"));
    assertThat(attributes("#slot-events tbody tr", "data-type"))
        .startsWith("SlotFired")
        .endsWith("SlotCompleted");
    assertThat(attributes("#slot-commands tbody tr", "data-command"))
        .isEqualTo(values(caused.getJsonArray("commands"), "commandId"));
    // No HTTP target: no deliveries.
    assertThat(browser.present("#deliveries")).isFalse();
  }

  @Test
  @Order(7)
  void backfillPreviewsThenRuns() throws Exception {
    browser.go("#/schedules/retention-cleanup");
    settled();
    browser.type("#backfill-from", BACKFILL_FROM);
    browser.type("#backfill-to", BACKFILL_TO);
    browser.click("#backfill-dry-run");
    browser.awaitText("#backfill-summary", "3 slots in the range, 0 already recorded");
    List<String> previewed =
        browser.driver.findElements(By.cssSelector("#backfill-preview li[data-slot]")).stream()
            .map(e -> e.getAttribute("data-slot"))
            .toList();
    assertThat(previewed)
        .containsExactly("2026-11-20T00:00:00Z", "2026-11-20T01:00:00Z", "2026-11-20T02:00:00Z");
    // The dry run ran nothing.
    assertThat(runsBetween("retention-cleanup", BACKFILL_FROM, BACKFILL_TO)).isEmpty();
    browser.script("document.getElementById('backfill-from').scrollIntoView()");
    browser.screenshot("backfill-preview");
    browser.click("#backfill-confirm");
    browser.awaitText("#backfill-result", "3 slots: 3 completed");
    assertThat(runsBetween("retention-cleanup", BACKFILL_FROM, BACKFILL_TO)).hasSize(3);
    assertThat(completedRunRow("2026-11-20T02:00:00Z")).contains("completed").contains("backfill");
    // A second preview marks them as done.
    browser.click("#backfill-dry-run");
    browser.awaitText("#backfill-summary", "3 already recorded");
  }

  @Test
  @Order(11)
  void theSlotPageListsAnHttpTargetsDeliveryAttempts() throws Exception {
    // One slot a few seconds from now, the next an hour later; retried a second after a failure.
    Instant slot = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
    hookSlot = slot;
    JsonObject definition =
        new JsonObject()
            .put("name", HOOK)
            .put("schedule", new JsonObject().put("every", "PT1H").put("anchor", slot.toString()))
            .put("retry", new JsonObject().put("maxAttempts", 3).put("initialBackoff", "PT1S"))
            .put(
                "target",
                new JsonObject()
                    .put(
                        "url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/" + HOOK));
    HttpResponse<String> created =
        SchedulesHttpIT.send(h, "POST", "/v1/schedules", "it-hook-1", null, definition.encode());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    // The timers fire it on time: the receiver's 500 (Retry-After: 1), then, retried, its 200.
    JsonObject run =
        Awaitility.await()
            .atMost(Duration.ofSeconds(40))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> runsBetween(HOOK, slot.toString(), slot.toString()),
                runs ->
                    runs != null
                        && runs.size() == 1
                        && "COMPLETED".equals(runs.getJsonObject(0).getString("status"))
                        && runs.getJsonObject(0).getJsonArray("deliveries") != null
                        && runs.getJsonObject(0).getJsonArray("deliveries").size() == 2)
            .getJsonObject(0);
    JsonArray deliveries = run.getJsonArray("deliveries");
    assertThat(deliveries.getJsonObject(0).getString("outcome")).isEqualTo("RETRY_STATUS");
    assertThat(deliveries.getJsonObject(0).getInteger("status")).isEqualTo(500);
    assertThat(deliveries.getJsonObject(0).getString("response")).isEqualTo(FAILED_ANSWER);
    assertThat(deliveries.getJsonObject(1).getString("outcome")).isEqualTo("DELIVERED");
    assertThat(deliveries.getJsonObject(1).getInteger("status")).isEqualTo(200);

    browser.go("#/slots/" + HOOK + "/" + slot);
    browser.awaitText("#slot-id", run.getString("slotId"));
    browser.wait.until(d -> d.findElements(By.cssSelector("#deliveries tbody tr")).size() == 2);
    List<WebElement> rows = browser.driver.findElements(By.cssSelector("#deliveries tbody tr"));
    for (int i = 0; i < deliveries.size(); i++) {
      JsonObject d = deliveries.getJsonObject(i);
      WebElement row = rows.get(i);
      assertThat(row.getAttribute("data-outcome")).isEqualTo(d.getString("outcome"));
      assertThat(row.findElement(By.cssSelector(".http-status")).getText())
          .isEqualTo(String.valueOf(d.getInteger("status")));
      assertThat(row.getText())
          .contains(d.getString("instanceId"))
          .contains(String.valueOf(d.getLong("fencingToken")));
    }
    assertThat(rows.get(0).findElement(By.cssSelector(".outcome")).getText())
        .isEqualTo("retry status");
    // Retry-After: 1 s.
    assertThat(rows.get(0).getText()).contains("1.0 s");
    // The receiver's markup is text on the page, never an element.
    assertThat(rows.get(0).findElement(By.cssSelector(".answer-body")).getText())
        .isEqualTo(FAILED_ANSWER);
    assertThat(browser.present("#injected")).isFalse();
    // The long answer (1 KiB of it kept) is collapsed behind its first characters.
    WebElement collapsed = rows.get(1).findElement(By.cssSelector("details.answer-body"));
    assertThat(collapsed.getAttribute("open")).isNull();
    assertThat(collapsed.getText()).startsWith("{\"ok\":true").endsWith("(1024 characters)");
    browser.script("document.getElementById('deliveries').scrollIntoView()");
    browser.screenshot("slot");
  }

  @Test
  @Order(12)
  void theSlotPageNamesTheCommandsItSentAndLinksToTheirAggregatesEvents() throws Exception {
    // A row of the stock feed: the next inventory-sync slot (a timer's, or this old one fired by
    // hand) counts it; the stock log names the slot and the command.
    String sku = "CONSOLE-SKU-1";
    TestInfra.execute(
        h.db, "INSERT INTO inventory_feed (sku, on_hand, as_of) VALUES ('" + sku + "', 12, now())");
    HttpResponse<String> ran =
        h.post(
            "/v1/schedules/inventory-sync/runs",
            AppHarness.OPERATOR,
            "console-sync-1",
            "{\"slot\":\"" + SYNC_SLOT + "\"}");
    assertThat(ran.statusCode()).as(ran.body()).isEqualTo(200);
    JsonObject counted =
        Awaitility.await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  HttpResponse<String> log =
                      h.get("/v1/inventory/" + sku + "/log", AppHarness.CLIENT);
                  JsonArray entries =
                      log.statusCode() == 200
                          ? new JsonObject(log.body()).getJsonArray("entries")
                          : new JsonArray();
                  return entries.isEmpty() ? null : entries.getJsonObject(0);
                },
                entry -> entry != null && entry.getString("slot") != null);
    String commandId = counted.getString("commandId");
    JsonObject run =
        new JsonObject(
                h.get("/v1/schedules/inventory-sync/runs?limit=1000", AppHarness.CLIENT).body())
            .getJsonArray("runs").stream()
                .map(JsonObject.class::cast)
                .filter(r -> r.getString("slotId").equals(counted.getString("slot")))
                .findFirst()
                .orElseThrow();
    String slot = run.getString("slot");

    browser.go("#/slots/inventory-sync/" + slot);
    WebElement command = browser.await("#slot-commands tr[data-command='" + commandId + "']");
    assertThat(command.getText()).contains("Inventory").contains(sku).contains("StockCounted");
    JsonObject caused = slotEvents("inventory-sync", slot);
    assertThat(attributes("#slot-commands tbody tr", "data-command"))
        .isEqualTo(values(caused.getJsonArray("commands"), "commandId"));
    assertThat(attributes("#slot-events tbody tr", "data-position"))
        .isEqualTo(values(caused.getJsonArray("events"), "position"));
    browser.script("document.getElementById('slot-commands').scrollIntoView()");
    browser.screenshot("slot-commands");

    // The aggregate's link: the event stream of that SKU, from just before the count.
    command.findElement(By.cssSelector("a.aggregate")).click();
    browser.awaitText("#view h1", "Events");
    assertThat(browser.await("#aggregate-id").getAttribute("value")).isEqualTo(sku);
    new org.openqa.selenium.support.ui.WebDriverWait(browser.driver, Duration.ofSeconds(45))
        .until(d -> !d.findElements(By.cssSelector("tr[data-type='StockCounted']")).isEmpty());
    assertThat(browser.driver.findElements(By.cssSelector("table.events tbody tr")))
        .allSatisfy(row -> assertThat(row.getText()).contains(sku));
    browser.click("#follow");
    browser.awaitText("#stream-status", "Stopped at position");
  }

  @Test
  @Order(13)
  void theEventsPageFollowsTheStreamAndTheLookupFindsAnOrder() throws Exception {
    HttpResponse<String> placed =
        h.post(
            "/v1/orders",
            AppHarness.CLIENT,
            "console-order-1",
            "{\"customerId\":\"c-1\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"A\",\"qty\":2,\"unitPriceCents\":150}]}");
    assertThat(placed.statusCode()).isEqualTo(201);
    String orderId = new JsonObject(placed.body()).getString("orderId");

    browser.go("#/events");
    // The stream passes a position left by a rolled-back transaction only once the event after
    // it is older than the gap timeout (10 s): give it longer than the usual wait.
    new org.openqa.selenium.support.ui.WebDriverWait(browser.driver, Duration.ofSeconds(45))
        .until(d -> !d.findElements(By.cssSelector("tr[data-type='OrderPlaced']")).isEmpty());
    browser.awaitText("#stream-status", "Following");
    browser.screenshot("events");
    browser.click("#follow");
    browser.awaitText("#stream-status", "Stopped at position");

    browser.go("#/lookup");
    browser.type("#lookup-id", orderId);
    browser.click("#lookup-go");
    browser.awaitText("#lookup-result", orderId);
    browser.click("#lookup-find-events");
    browser.awaitText("#lookup-events", "events");
    browser.await("#lookup-events tr[data-type='OrderPlaced']");
    browser.screenshot("lookup");

    // By now the timers, the trigger and the backfill have filled the run strips.
    browser.go("#/schedules");
    browser.await("#schedules .strip");
    browser.screenshot("schedules");
    browser.go("#/schedules/order-fulfilment");
    browser.await("#runs-table");
    browser.await("#timeline-summary");
    browser.screenshot("schedule");
  }

  @Test
  @Order(14)
  void mainPagesFitAPhoneWithoutSidewaysScroll() throws Exception {
    browser.viewport(390, 844, true);
    try {
      for (String page :
          List.of(
              "#/schedules",
              "#/schedules/daily-report",
              "#/new-schedule",
              "#/schedules/" + MADE,
              "#/schedules/" + MADE + "/edit",
              "#/slots/daily-report/" + REPORT_SLOT,
              "#/slots/" + HOOK + "/" + hookSlot,
              "#/events",
              "#/lookup")) {
        browser.open(page);
        browser.wait.until(d -> !d.findElements(By.cssSelector("#view h1")).isEmpty());
        browser.wait.until(
            d -> d.findElements(By.xpath("//*[@id='view']//p[text()='Loading…']")).isEmpty());
        assertThat(browser.scrollsSideways()).as(page + " at 390x844").isFalse();
      }
      browser.open("#/schedules");
      browser.await("#schedules tbody tr");
      browser.screenshot("schedules-phone");
    } finally {
      browser.viewport(1280, 800, false);
    }
  }

  @Test
  @Order(15)
  void aClientTokenSeesNoActions() throws Exception {
    browser.signIn(AppHarness.CLIENT);
    assertThat(browser.await("#who").getText()).isEqualTo("client · read-only");
    // The client reads the schedules and changes nothing.
    browser.go("#/schedules");
    browser.await("#schedules tr[data-job='" + MADE + "']");
    assertThat(browser.present("#new-schedule")).isFalse();
    for (String page :
        List.of(
            "#/schedules/daily-report",
            "#/schedules/" + MADE,
            "#/schedules/" + MADE + "/edit",
            "#/new-schedule")) {
      browser.go(page);
      browser.await("#read-only");
      for (String action :
          List.of(
              "#pause-resume",
              "#trigger",
              "#backfill-dry-run",
              "#edit",
              "#delete",
              "#preview-button",
              "#apply")) {
        assertThat(browser.present(action)).as(page + " " + action).isFalse();
      }
    }
    browser.go("#/events");
    browser.awaitText("#stream-status", "Following");
    browser.click("#sign-out");
    browser.await("#token");
    // Nothing of the session stays in the tab: the token, the stream position.
    assertThat(browser.script("return sessionStorage.length")).isEqualTo(0L);
  }

  /**
   * The text of the runs table's row of a completed slot. The runs are a read model a moment behind
   * the write (a run may show as fired first): the page reads them again after an action, and this
   * presses Refresh until the row shows the slot completed.
   */
  private static String completedRunRow(String slot) {
    By row = By.cssSelector("#runs-table tr[data-slot='" + slot + "']");
    return browser
        .wait
        .ignoring(StaleElementReferenceException.class)
        .until(
            d -> {
              List<WebElement> found = d.findElements(row);
              if (found.isEmpty() || !found.get(0).getText().contains("completed")) {
                d.findElement(By.id("refresh-runs")).click();
                return null;
              }
              return found.get(0).getText();
            });
  }

  /** Waits for a schedule page's sections above the actions, so a click meets no layout shift. */
  private static void settled() {
    browser.await("#timeline-summary");
    browser.await("#ahead-dst");
  }

  private static JsonObject jobJson(String name) {
    return new JsonObject(h.get("/v1/schedules/" + name, AppHarness.OPERATOR).body());
  }

  /** The slots a preview's column lists. */
  private static List<String> slots(String css) {
    return browser.driver.findElements(By.cssSelector(css)).stream()
        .map(e -> e.getAttribute("data-slot"))
        .toList();
  }

  private static JsonObject slotEvents(String job, String slot) {
    HttpResponse<String> r =
        h.get("/v1/schedules/" + job + "/runs/" + slot + "/events", AppHarness.CLIENT);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  /** An attribute of every element the selector finds, in document order. */
  private static List<String> attributes(String css, String attribute) {
    return browser.driver.findElements(By.cssSelector(css)).stream()
        .map(e -> e.getAttribute(attribute))
        .toList();
  }

  /** A field of every object of the array, as text. */
  private static List<String> values(JsonArray objects, String field) {
    return objects.stream().map(o -> String.valueOf(((JsonObject) o).getValue(field))).toList();
  }

  private static JsonArray runsBetween(String job, String from, String to) {
    return new JsonObject(
            h.get("/v1/schedules/" + job + "/runs?from=" + from + "&to=" + to, AppHarness.OPERATOR)
                .body())
        .getJsonArray("runs");
  }
}
