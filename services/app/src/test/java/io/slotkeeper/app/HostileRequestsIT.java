package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input gets a clear 4xx problem and changes nothing. */
class HostileRequestsIT {

  static AppHarness h;

  @BeforeAll
  static void start() {
    // One test speaks HTTP/2 (h2c, prior knowledge) to the REST port: off by default.
    h = new AppHarness("hostile_http", Map.of("SLOTKEEPER_HTTP_H2C", "true"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static Stream<Arguments> badBodies() {
    String line = "{\"sku\":\"A\",\"qty\":1,\"unitPriceCents\":1}";
    return Stream.of(
        Arguments.of("malformed JSON", "{\"customerId\":", 400),
        Arguments.of("truncated", "{\"customerId\":\"c\",\"currency\":\"CNY\",\"items\":[", 400),
        Arguments.of("not an object", "[1,2]", 400),
        Arguments.of("empty", "", 400),
        Arguments.of(
            "wrong type", "{\"customerId\":5,\"currency\":\"CNY\",\"items\":[" + line + "]}", 400),
        Arguments.of(
            "unknown currency",
            "{\"customerId\":\"c\",\"currency\":\"ZZZ\",\"items\":[" + line + "]}",
            400),
        Arguments.of(
            "lower-case currency",
            "{\"customerId\":\"c\",\"currency\":\"cny\",\"items\":[" + line + "]}",
            400),
        Arguments.of("no items", "{\"customerId\":\"c\",\"currency\":\"CNY\",\"items\":[]}", 400),
        Arguments.of(
            "negative qty",
            "{\"customerId\":\"c\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"A\",\"qty\":-1,\"unitPriceCents\":1}]}",
            400),
        Arguments.of(
            "fractional price",
            "{\"customerId\":\"c\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"A\",\"qty\":1,\"unitPriceCents\":1.5}]}",
            400),
        Arguments.of(
            "huge number",
            "{\"customerId\":\"c\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"A\",\"qty\":1,\"unitPriceCents\":1e300}]}",
            400),
        Arguments.of(
            "overflowing integer",
            "{\"customerId\":\"c\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"A\",\"qty\":99999999999999999999999,\"unitPriceCents\":1}]}",
            400),
        Arguments.of(
            "unknown field",
            "{\"customerId\":\"c\",\"currency\":\"CNY\",\"admin\":true,\"items\":[" + line + "]}",
            400),
        Arguments.of(
            "injection in id",
            "{\"customerId\":\"c'; DROP TABLE orders;--\",\"currency\":\"CNY\",\"items\":["
                + line
                + "]}",
            400),
        Arguments.of("oversized", "{\"customerId\":\"" + "x".repeat(70_000) + "\"}", 413));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badBodies")
  void badBodiesAreRefusedAndChangeNothing(String name, String body, int status) {
    String before = h.stateFingerprint();
    HttpResponse<String> r = h.post("/v1/orders", AppHarness.CLIENT, "hostile-" + name, body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonObject problem = new JsonObject(r.body());
    assertThat(problem.getInteger("status")).isEqualTo(status);
    assertThat(problem.getString("title")).isNotBlank();
    assertThat(r.body()).doesNotContain("Exception").doesNotContain("at io.");
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @Test
  void validationProblemsNameTheFields() {
    HttpResponse<String> r =
        h.post(
            "/v1/orders",
            AppHarness.CLIENT,
            "fields-1",
            "{\"currency\":\"ZZZ\",\"items\":[{\"sku\":\"A\",\"qty\":0,\"unitPriceCents\":1}]}");
    assertThat(r.statusCode()).isEqualTo(400);
    JsonObject errors = new JsonObject(r.body()).getJsonObject("errors");
    assertThat(errors.fieldNames()).contains("customerId", "items[0].qty");
  }

  static Stream<Arguments> badKeys() {
    return Stream.of(Arguments.of("missing", null), Arguments.of("too long", "k".repeat(256)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badKeys")
  void badIdempotencyKeysAre400(String name, String key) {
    String before = h.stateFingerprint();
    HttpResponse<String> r = h.post("/v1/orders", AppHarness.CLIENT, key, OrdersHttpIT.ORDER);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(r.body()).getString("detail"))
        .containsIgnoringCase("Idempotency-Key");
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  // Reported by HttpFuzzIT as "ù-key" accepted: java.net.http sends HTTP/1.1 header values as
  // US-ASCII, so the server got "?-key", a valid key. Here the bytes clients really send.
  static Stream<Arguments> nonAsciiKeys() {
    return Stream.of(
        Arguments.of("ù-key in UTF-8 (curl)", RawHttp.utf8("\u00f9-key"), 1),
        Arguments.of("ù-key in Latin-1", "\u00f9-key", 1),
        Arguments.of("clé in UTF-8", RawHttp.utf8("cl\u00e9"), 3),
        Arguments.of("CJK in UTF-8", RawHttp.utf8("key-\u65e5\u672c"), 5),
        Arguments.of("no-break space in UTF-8", RawHttp.utf8("key\u00a0"), 4),
        Arguments.of("emoji in UTF-8", RawHttp.utf8("\ud83d\udca5"), 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nonAsciiKeys")
  void nonAsciiIdempotencyKeysAre400AndChangeNothing(String name, String wire, int position)
      throws Exception {
    String before = h.stateFingerprint();
    RawHttp.Response r =
        RawHttp.send(
            h.app.httpPort(),
            "POST",
            "/v1/orders",
            Map.of(
                "Authorization",
                "Bearer " + AppHarness.CLIENT,
                "Content-Type",
                "application/json",
                "Idempotency-Key",
                wire),
            OrdersHttpIT.ORDER.getBytes(StandardCharsets.UTF_8));
    assertThat(r.status()).as(r.body()).isEqualTo(400);
    assertThat(r.header("Content-Type")).hasValue("application/problem+json");
    JsonObject problem = new JsonObject(r.body());
    assertThat(problem.getInteger("status")).isEqualTo(400);
    assertThat(problem.getString("detail"))
        .contains("Idempotency-Key must be printable ASCII")
        .contains("character " + position + " is not");
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @Test
  void aNonAsciiKeyOverHttp2Is400AndChangesNothing() throws Exception {
    // HTTP/2 (h2c, prior knowledge) carries header bytes through HPACK: Latin-1 here.
    Vertx vertx = Vertx.vertx();
    try {
      HttpClient client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setProtocolVersion(HttpVersion.HTTP_2)
                  .setHttp2ClearTextUpgrade(false));
      String before = h.stateFingerprint();
      JsonObject[] answer = new JsonObject[1];
      HttpClientResponse resp =
          client
              .request(HttpMethod.POST, h.app.httpPort(), "127.0.0.1", "/v1/orders")
              .compose(
                  req ->
                      req.putHeader("Authorization", "Bearer " + AppHarness.CLIENT)
                          .putHeader("Content-Type", "application/json")
                          .putHeader("Idempotency-Key", "\u00f9-key")
                          .send(OrdersHttpIT.ORDER))
              .compose(
                  res ->
                      res.body()
                          .map(
                              b -> {
                                answer[0] = b.toJsonObject();
                                return res;
                              }))
              .await(20, TimeUnit.SECONDS);
      assertThat(resp.version()).isEqualTo(HttpVersion.HTTP_2);
      assertThat(resp.statusCode()).as("%s", answer[0]).isEqualTo(400);
      assertThat(resp.getHeader("Content-Type")).isEqualTo("application/problem+json");
      assertThat(answer[0].getString("detail")).contains("character 1 is not");
      assertThat(h.stateFingerprint()).isEqualTo(before);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void tokensAndRolesAreEnforced() {
    assertThat(h.post("/v1/orders", null, "auth-1", OrdersHttpIT.ORDER).statusCode())
        .isEqualTo(401);
    HttpResponse<String> wrong =
        h.post("/v1/orders", "not-a-real-token", "auth-1", OrdersHttpIT.ORDER);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(
            h.post(
                    "/v1/admin/projections/orders-projection/rebuild",
                    AppHarness.CLIENT,
                    "auth-2",
                    "{}")
                .statusCode())
        .isEqualTo(403);
    assertThat(h.get("/v1/admin/projections", AppHarness.OPERATOR).statusCode()).isEqualTo(200);
    assertThat(h.get("/v1/orders/x", null).statusCode()).isEqualTo(401);
  }

  static HttpResponse<String> postAs(String path, String key, String contentType, String body) {
    return h.send(
        java.net.http.HttpRequest.newBuilder(h.uri(path))
            .header("Authorization", "Bearer " + AppHarness.OPERATOR)
            .header("Idempotency-Key", key)
            .header("Content-Type", contentType)
            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  // Found by HttpFuzzIT: both were 500s.
  @Test
  void aLongFormFieldIsRefusedNot500() {
    String before = h.stateFingerprint();
    HttpResponse<String> r =
        postAs(
            "/v1/orders/x/process",
            "form-1",
            "application/x-www-form-urlencoded",
            "{\"" + "x".repeat(5000));
    // Non-JSON bodies are refused before anything decodes them.
    assertThat(r.statusCode()).as(r.body()).isEqualTo(415);
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  // Found by HttpFuzzIT: the multipart body was decoded away and the order processed (200).
  @Test
  void aFormBodyOnARouteWithAnOptionalBodyIs415() {
    String before = h.stateFingerprint();
    HttpResponse<String> r =
        postAs(
            "/v1/jobs/inventory-sync/pause",
            "form-2",
            "multipart/form-data; boundary=xyz",
            "{\"admin\":1}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(415);
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"-1000000000-01-01T00:00:00Z", "+1000000000-12-31T23:59:59.999999999Z"})
  void instantsBeyondTheYear9999AreRefusedNot500(String instant) {
    String before = h.stateFingerprint();
    HttpResponse<String> trigger =
        h.post(
            "/v1/jobs/daily-report/runs",
            AppHarness.OPERATOR,
            "extreme-" + instant.charAt(0),
            new JsonObject().put("slot", instant).encode());
    assertThat(trigger.statusCode()).as(trigger.body()).isEqualTo(400);
    HttpResponse<String> runs =
        h.get(
            "/v1/jobs/daily-report/runs?from="
                + java.net.URLEncoder.encode(instant, StandardCharsets.UTF_8),
            AppHarness.OPERATOR);
    assertThat(runs.statusCode()).as(runs.body()).isEqualTo(400);
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @Test
  void publicEndpointsNeedNoToken() {
    assertThat(h.get("/health/live", null).statusCode()).isEqualTo(200);
    HttpResponse<String> ready = h.get("/health/ready", null);
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(
            new JsonObject(ready.body())
                .getJsonObject("checks")
                .getJsonObject("postgres")
                .getString("status"))
        .isEqualTo("UP");
    assertThat(h.get("/metrics", null).body())
        .contains("jvm_memory_used_bytes")
        .contains("slotkeeper_clock_skew_seconds");
    assertThat(h.get("/openapi.yaml", null).body()).contains("openapi: 3");
    assertThat(h.get("/v1/does-not-exist", AppHarness.CLIENT).statusCode()).isEqualTo(404);
  }
}
