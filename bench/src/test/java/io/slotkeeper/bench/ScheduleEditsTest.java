package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The edit load's HTTP mechanics against a small stand-in of the Schedule API (a version per
 * schedule, its ETag, If-Match checked, 412 on a stale one): what the runner sends and counts.
 */
class ScheduleEditsTest {

  private final Vertx vertx = Vertx.vertx();
  private final Map<String, Integer> versions = new ConcurrentHashMap<>();
  private final Set<String> keys = ConcurrentHashMap.newKeySet();
  private final Map<String, String> lastParam = new ConcurrentHashMap<>();
  private volatile boolean stale;
  private volatile boolean hasApi = true;
  private HttpServer server;
  private String base;

  @BeforeEach
  void start() {
    server = vertx.createHttpServer().requestHandler(this::handle).listen(0).await();
    base = "http://127.0.0.1:" + server.actualPort();
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private void handle(HttpServerRequest req) {
    req.body()
        .onSuccess(
            body -> {
              String path = req.path();
              if (!hasApi) {
                req.response().setStatusCode(404).end();
              } else if (!("Bearer " + Bench.OPERATOR_TOKEN)
                  .equals(req.getHeader("Authorization"))) {
                req.response().setStatusCode(401).end();
              } else if (req.method() == HttpMethod.GET && path.equals("/v1/schedules")) {
                req.response().end("{\"items\":[]}");
              } else if (req.method() == HttpMethod.POST && path.equals("/v1/schedules")) {
                versions.put(new JsonObject(body.toString()).getString("name"), 1);
                keys.add(req.getHeader("Idempotency-Key"));
                req.response().setStatusCode(201).end("{}");
              } else {
                String name = path.substring("/v1/schedules/".length());
                int version = versions.getOrDefault(name, 0);
                String etag = "\"" + version + "\"";
                if (req.method() == HttpMethod.GET) {
                  req.response().putHeader("ETag", etag).end("{}");
                } else if (stale || !etag.equals(req.getHeader("If-Match"))) {
                  req.response().setStatusCode(412).end("{\"title\":\"stale version\"}");
                } else {
                  versions.put(name, version + 1);
                  keys.add(req.getHeader("Idempotency-Key"));
                  lastParam.put(
                      name,
                      new JsonObject(body.toString()).getJsonObject("params").getString("edit"));
                  req.response().putHeader("ETag", "\"" + (version + 1) + "\"").end("{}");
                }
              }
            });
  }

  @Test
  void aServiceWithoutTheScheduleApiIsToldApart() {
    assertThat(ScheduleEdits.unavailable(base)).isNull();
    hasApi = false;
    assertThat(ScheduleEdits.unavailable(base)).isEqualTo("no /v1/schedules on this service");
  }

  @Test
  void editsReadTheVersionAndChangeTheScheduleUnderItWithFreshKeys() {
    List<String> names = List.of("b1-e-0", "b1-e-1", "b1-e-2");
    ScheduleEdits.Result r;
    try (ScheduleEdits edits = ScheduleEdits.create(base, "b1-edits", names)) {
      edits.start(1200);
      Bench.sleep(1_500);
      r = edits.stop();
    }

    assertThat(r.failed()).isZero();
    assertThat(r.ok()).isGreaterThanOrEqualTo(20);
    assertThat(r.p99Ms()).isPositive();
    int applied = versions.values().stream().mapToInt(v -> v - 1).sum();
    assertThat((long) applied).as("every answered edit changed its schedule").isEqualTo(r.ok());
    assertThat(keys).as("one key per create and per edit").hasSize(names.size() + applied);
    assertThat(lastParam.keySet()).containsExactlyInAnyOrderElementsOf(names);
  }

  @Test
  void aRefusedEditIsCountedWithTheFirstAnswer() {
    ScheduleEdits.Result r;
    try (ScheduleEdits edits = ScheduleEdits.create(base, "b1-edits", List.of("b1-e-0"))) {
      stale = true;
      edits.start(600);
      Bench.sleep(600);
      r = edits.stop();
    }

    assertThat(r.ok()).isZero();
    assertThat(r.failed()).isPositive();
    assertThat(r.firstFailure()).startsWith("PUT b1-e-0: 412");
  }
}
