package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Hostile input over the HTTP API, property-based (jqwik): every generated request is invalid by
 * construction and must get a 4xx (problem+json), within 10 s, and leave the state as it was.
 * Tries: {@code jqwik.tries.default} (junit-platform.properties for {@code make test}, raised by
 * {@code make fuzz}).
 *
 * <p>Allowed statuses: 400, 401, 403, 404, 405, 409, 413, 415, 422, and 414/431 (URI or headers too
 * long, answered before routing, problem+json too). Reads may also answer 200. "State" is {@link
 * AppHarness#effectsFingerprint()}: a well-formed request the domain refuses (409 wrong state)
 * saves its rejection under its key (a 404 does not); nothing else may change.
 */
class HttpFuzzIT {

  static final Set<Integer> REFUSALS =
      Set.of(400, 401, 403, 404, 405, 409, 413, 414, 415, 422, 431);

  static final String ORDER =
      "{\"customerId\":\"c-fuzz\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"FUZZ-A\",\"qty\":1,\"unitPriceCents\":100}]}";

  static AppHarness h;
  static String newOrder;
  static String doneOrder;
  static String refundId;
  static List<BodyRoute> bodyRoutes;
  static List<String> readPaths;

  enum Kind {
    ID,
    TEXT,
    CURRENCY,
    INSTANT,
    INT,
    BOOL,
    ITEMS
  }

  /** A body field: its JSON kind, whether required, and its range (numbers) or length. */
  record Field(String name, Kind kind, boolean required, long min, long max) {}

  /** A mutating route with a valid body template. */
  record BodyRoute(String path, String token, JsonObject template, List<Field> fields) {
    @Override
    public String toString() {
      return "POST " + path;
    }
  }

  /** One request. {@code auth}/{@code key}/{@code contentType} may be NO_HEADER. */
  record Case(
      String method,
      String path,
      String auth,
      String key,
      String contentType,
      byte[] body,
      List<String> how) {
    @Override
    public String toString() {
      String shown = new String(body, StandardCharsets.UTF_8);
      return method
          + " "
          + (path.length() > 300 ? path.substring(0, 300) + "…" : path)
          + " auth="
          + abbreviate(auth)
          + " key="
          + abbreviate(key)
          + " type="
          + contentType
          + " how="
          + how
          + " body="
          + abbreviate(shown);
    }
  }

  static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "…(" + s.length() + ")" : s;
  }

  @BeforeContainer
  static void start() {
    h = new AppHarness("fuzz_http", Map.of());
    ok(h.post("/v1/inventory/FUZZ-A/receipts", AppHarness.CLIENT, "setup-1", "{\"qty\":100}"));
    newOrder = placeOrder("setup-2");
    doneOrder = placeOrder("setup-3");
    ok(h.post("/v1/orders/" + doneOrder + "/process", AppHarness.OPERATOR, "setup-4", ""));
    refundId =
        new JsonObject(
                ok(
                    h.post(
                        "/v1/orders/" + doneOrder + "/refunds",
                        AppHarness.CLIENT,
                        "setup-5",
                        "{\"amountCents\":10,\"reason\":\"setup\"}")))
            .getString("refundId");
    h.awaitJson("/v1/refunds/" + refundId, j -> true);
    h.awaitJson("/v1/orders/" + newOrder, j -> true);
    h.awaitJson("/v1/orders/" + doneOrder, j -> "COMPLETED".equals(j.getString("status")));
    String[] settled = {""};
    org.awaitility.Awaitility.await()
        .pollInterval(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(15))
        .until(() -> settled[0].equals(settled[0] = h.stateFingerprint()));

    Field reason = new Field("reason", Kind.TEXT, false, 1, 1024);
    bodyRoutes =
        List.of(
            new BodyRoute(
                "/v1/orders",
                AppHarness.CLIENT,
                new JsonObject(ORDER),
                List.of(
                    new Field("orderId", Kind.ID, false, 1, 128),
                    new Field("customerId", Kind.ID, true, 1, 128),
                    new Field("currency", Kind.CURRENCY, true, 3, 3),
                    new Field("items", Kind.ITEMS, true, 1, 200))),
            new BodyRoute(
                "/v1/orders/" + newOrder + "/cancel",
                AppHarness.CLIENT,
                new JsonObject().put("reason", "fuzz"),
                List.of(reason)),
            new BodyRoute(
                "/v1/orders/" + newOrder + "/process",
                AppHarness.OPERATOR,
                new JsonObject(),
                List.of()),
            new BodyRoute(
                "/v1/orders/" + doneOrder + "/refunds",
                AppHarness.CLIENT,
                new JsonObject().put("amountCents", 5).put("reason", "fuzz"),
                List.of(
                    new Field("amountCents", Kind.INT, true, 1, Long.MAX_VALUE),
                    new Field("reason", Kind.TEXT, true, 1, 1024))),
            new BodyRoute(
                "/v1/refunds/" + refundId + "/issue",
                AppHarness.OPERATOR,
                new JsonObject(),
                List.of()),
            new BodyRoute(
                "/v1/inventory/FUZZ-A/receipts",
                AppHarness.CLIENT,
                new JsonObject().put("qty", 3).put("reason", "fuzz"),
                List.of(new Field("qty", Kind.INT, true, 1, 1_000_000_000), reason)),
            new BodyRoute(
                "/v1/jobs/daily-report/runs",
                AppHarness.OPERATOR,
                new JsonObject().put("slot", "2026-11-28T00:05:00Z"),
                List.of(new Field("slot", Kind.INSTANT, true, 1, 64))),
            new BodyRoute(
                "/v1/jobs/inventory-sync/pause", AppHarness.OPERATOR, new JsonObject(), List.of()),
            new BodyRoute(
                "/v1/jobs/inventory-sync/resume", AppHarness.OPERATOR, new JsonObject(), List.of()),
            new BodyRoute(
                "/v1/jobs/retention-cleanup/backfill",
                AppHarness.OPERATOR,
                new JsonObject()
                    .put("from", "2026-11-20T00:00:00Z")
                    .put("to", "2026-11-20T02:00:00Z")
                    .put("dryRun", false),
                List.of(
                    new Field("from", Kind.INSTANT, true, 1, 64),
                    new Field("to", Kind.INSTANT, true, 1, 64),
                    new Field("dryRun", Kind.BOOL, false, 0, 0))),
            new BodyRoute(
                "/v1/admin/projections/orders-projection/rebuild",
                AppHarness.OPERATOR,
                new JsonObject(),
                List.of()));
    readPaths =
        List.of(
            "/v1/orders/" + newOrder,
            "/v1/orders/" + doneOrder + "/refunds",
            "/v1/refunds/" + refundId,
            "/v1/inventory/FUZZ-A",
            "/v1/inventory/FUZZ-A/log?limit=5",
            "/v1/events?after=0&limit=5",
            "/v1/jobs/daily-report",
            "/v1/jobs/daily-report/runs?limit=5",
            "/v1/schedules/daily-report/runs/2026-11-28T16:05:00Z/events",
            "/v1/admin/projections");
  }

  @AfterContainer
  static void stop() {
    h.close();
  }

  static String placeOrder(String key) {
    return new JsonObject(ok(h.post("/v1/orders", AppHarness.CLIENT, key, ORDER)))
        .getString("orderId");
  }

  static String ok(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
    return r.body();
  }

  // ---------------------------------------------------------------- properties

  @Property
  void mutatedBodiesAreRefused(@ForAll("mutatedBodies") Case c) {
    assertRefused(c, false);
  }

  @Property
  void hostilePathSegmentsAreRefused(@ForAll("hostilePaths") Case c) {
    assertRefused(c, c.method().equals("GET"));
  }

  @Property
  void badIdempotencyKeysAreRefused(
      @ForAll("bodyRoute") BodyRoute route, @ForAll("badKeys") String key) {
    assertRefused(
        new Case(
            "POST",
            route.path(),
            bearer(route.token()),
            key,
            JSON,
            bytes(route.template()),
            List.of()),
        false);
  }

  @Property
  void badTokensAreRefused(@ForAll("anyRequest") Case valid, @ForAll("badAuth") String auth) {
    assertRefused(
        new Case(valid.method(), valid.path(), auth, valid.key(), JSON, valid.body(), List.of()),
        false);
  }

  @Property
  void clientTokensCannotUseOperatorRoutes(@ForAll("bodyRoute") BodyRoute route) {
    if (route.token().equals(AppHarness.OPERATOR)) {
      Case c = validCase(route, bearer(AppHarness.CLIENT));
      assertThat(assertRefused(c, false)).isEqualTo(403);
    }
  }

  @Property
  void hostileQueryParametersAreRefused(@ForAll("hostileQueries") String pathAndQuery) {
    assertRefused(
        new Case(
            "GET",
            pathAndQuery,
            bearer(AppHarness.OPERATOR),
            HostileValues.NO_HEADER,
            HostileValues.NO_HEADER,
            new byte[0],
            List.of()),
        true);
  }

  @Property
  void extremeInstantsAreRefused(@ForAll("extremeInstantCases") Case c) {
    // Dry runs and reads change nothing and may list what the range holds.
    assertRefused(c, c.method().equals("GET") || c.path().endsWith("/backfill"));
  }

  // ---------------------------------------------------------------- oracle

  static final String JSON = "application/json";

  /** Vert.x's default limit on a request's headers (HttpServerOptions.DEFAULT_MAX_HEADER_SIZE). */
  static final int MAX_HEADER_CHARS = io.vertx.core.http.HttpServerOptions.DEFAULT_MAX_HEADER_SIZE;

  /** The characters of the headers the case sets. */
  static int headerChars(Case c) {
    return length(c.auth()) + length(c.key()) + length(c.contentType());
  }

  private static int length(String s) {
    return s == null ? 0 : s.length();
  }

  /** Sends the request; asserts a refusal (or a 200 when {@code mayRead}) and no effect. */
  static int assertRefused(Case c, boolean mayRead) {
    String before = h.effectsFingerprint();
    if (!RawHttp.plainHeader(c.key()) && !HostileValues.NO_HEADER.equals(c.key())) {
      return assertRefusedRaw(c, before);
    }
    HttpRequest.Builder b =
        HttpRequest.newBuilder(h.uri(c.path()))
            .timeout(Duration.ofSeconds(10))
            .version(java.net.http.HttpClient.Version.HTTP_1_1)
            .method(c.method(), HttpRequest.BodyPublishers.ofByteArray(c.body()));
    header(b, "Authorization", c.auth());
    header(b, "Idempotency-Key", c.key());
    header(b, "Content-Type", c.contentType());
    HttpResponse<String> r;
    try {
      r = h.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      // The HTTP codec closes the connection on a request line over 4 KB or headers over 8 KB
      // (after or instead of 414 / 431); a client still sending may see the close, not the answer.
      assertThat(c.path().length() > 4096 || headerChars(c) > MAX_HEADER_CHARS - 256)
          .as("connection closed on a request within the codec's limits: %s: %s", c, e)
          .isTrue();
      assertThat(h.effectsFingerprint()).as("state after %s", c).isEqualTo(before);
      return c.path().length() > 4096 ? 414 : 431;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    int status = r.statusCode();
    if (!(mayRead && status == 200)) {
      assertThat(REFUSALS).as("status %s of %s: %s", status, c, r.body()).contains(status);
      if (status != 414 && status != 431) {
        assertThat(r.headers().firstValue("Content-Type"))
            .as("%s", c)
            .hasValue("application/problem+json");
        assertThat(new JsonObject(r.body()).getInteger("status")).isEqualTo(status);
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at io.");
      }
    }
    assertThat(h.effectsFingerprint()).as("state after %s (%s)", c, status).isEqualTo(before);
    return status;
  }

  /** Header bytes above 0x7E, which java.net.http would turn into '?': over a plain socket. */
  static int assertRefusedRaw(Case c, String before) {
    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
    for (String[] nv :
        new String[][] {
          {"Authorization", c.auth()},
          {"Idempotency-Key", c.key()},
          {"Content-Type", c.contentType()}
        }) {
      if (!HostileValues.NO_HEADER.equals(nv[1])) {
        headers.put(nv[0], nv[1]);
      }
    }
    RawHttp.Response r;
    try {
      r = RawHttp.send(h.app.httpPort(), c.method(), c.path(), headers, c.body());
    } catch (java.io.IOException e) {
      throw new AssertionError(c + ": " + e, e);
    }
    int status = r.status();
    assertThat(REFUSALS).as("status %s of %s: %s", status, c, r.body()).contains(status);
    if (status != 414 && status != 431) {
      assertThat(r.header("Content-Type")).as("%s", c).hasValue("application/problem+json");
      assertThat(new JsonObject(r.body()).getInteger("status")).isEqualTo(status);
      assertThat(r.body()).doesNotContain("Exception").doesNotContain("at io.");
    }
    assertThat(h.effectsFingerprint()).as("state after %s (%s)", c, status).isEqualTo(before);
    return status;
  }

  static void header(HttpRequest.Builder b, String name, String value) {
    if (!HostileValues.NO_HEADER.equals(value)) {
      b.header(name, value);
    }
  }

  static String bearer(String token) {
    return "Bearer " + token;
  }

  static String freshKey() {
    return "fuzz-" + UUID.randomUUID();
  }

  static byte[] bytes(JsonObject json) {
    return json.encode().getBytes(StandardCharsets.UTF_8);
  }

  static Case validCase(BodyRoute route, String auth) {
    return new Case(
        "POST", route.path(), auth, freshKey(), JSON, bytes(route.template()), List.of());
  }

  static String encodeSegment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  // ---------------------------------------------------------------- generators

  @Provide
  Arbitrary<BodyRoute> bodyRoute() {
    return Arbitraries.of(bodyRoutes);
  }

  @Provide
  Arbitrary<String> badKeys() {
    return HostileValues.badKeys();
  }

  @Provide
  Arbitrary<String> badAuth() {
    return HostileValues.badAuthorizations();
  }

  /** A request that is valid but for what the property changes (token, key...). */
  @Provide
  Arbitrary<Case> anyRequest() {
    return Arbitraries.oneOf(
        bodyRoute().map(r -> validCase(r, bearer(r.token()))),
        Arbitraries.of(readPaths)
            .map(
                p ->
                    new Case(
                        "GET",
                        p,
                        "",
                        HostileValues.NO_HEADER,
                        HostileValues.NO_HEADER,
                        new byte[0],
                        List.of())));
  }

  /** A mutation of the parsed body; {@code invalidating}: the result is invalid, whatever else. */
  record Mutation(String name, UnaryOperator<JsonObject> apply) {}

  /** A mutation of the encoded body. */
  record TextMutation(String name, UnaryOperator<byte[]> apply) {}

  @Provide
  Arbitrary<Case> mutatedBodies() {
    return bodyRoute()
        .flatMap(
            route ->
                Combinators.combine(
                        invalidating(route).list().ofMinSize(1).ofMaxSize(3),
                        neutral(route).list().ofMaxSize(2),
                        neutralText().list().ofMaxSize(2),
                        invalidatingText().optional(),
                        contentTypes())
                    .as(
                        (inv, neu, text, lastText, type) -> {
                          List<String> how = new ArrayList<>();
                          JsonObject body = route.template().copy();
                          for (Mutation m : neu) {
                            body = m.apply().apply(body);
                            how.add(m.name());
                          }
                          for (Mutation m : inv) {
                            body = m.apply().apply(body);
                            how.add(m.name());
                          }
                          byte[] bytes =
                              rawLiterals(body.encode()).getBytes(StandardCharsets.UTF_8);
                          for (TextMutation m : text) {
                            bytes = m.apply().apply(bytes);
                            how.add(m.name());
                          }
                          if (lastText.isPresent()) {
                            bytes = lastText.get().apply().apply(bytes);
                            how.add(lastText.get().name());
                          }
                          return new Case(
                              "POST",
                              route.path(),
                              bearer(route.token()),
                              freshKey(),
                              type,
                              bytes,
                              how);
                        }));
  }

  /** Raw JSON text (numbers beyond double, nesting) travels as a marker through JsonObject. */
  static String raw(String literal) {
    return "@@RAW@@" + literal + "@@";
  }

  static String rawLiterals(String encoded) {
    return java.util.regex.Pattern.compile("\"@@RAW@@(.*?)@@\"")
        .matcher(encoded)
        .replaceAll(m -> java.util.regex.Matcher.quoteReplacement(m.group(1)));
  }

  static Arbitrary<Object> wrongTypeFor(Kind kind) {
    Arbitrary<Object> nesting =
        Arbitraries.integers()
            .between(2, 5_000)
            .map(d -> (Object) raw("[".repeat(d) + "]".repeat(d)));
    Arbitrary<Object> notString =
        Arbitraries.oneOf(
            Arbitraries.of(0, -1, 1.5, true, false, raw("1e308"), raw("-0.0")),
            Arbitraries.of(
                new JsonArray().add("x"), new JsonObject().put("$ne", 1), new JsonArray()),
            nesting);
    Arbitrary<Object> notWholeNumber =
        Arbitraries.oneOf(
            Arbitraries.of("1", "NaN", "Infinity", "-Infinity", "1e3", "0x10", "", true, 1.5, -0.5),
            Arbitraries.of(
                raw("1e308"),
                raw("-1e308"),
                raw("1.0"),
                raw("9223372036854775808"),
                raw("-9223372036854775809"),
                raw("99999999999999999999999999999999"),
                raw("1E2")),
            Arbitraries.of(new JsonArray().add(1), new JsonObject()),
            nesting);
    switch (kind) {
      case INT:
        return notWholeNumber;
      case BOOL:
        return Arbitraries.oneOf(
            Arbitraries.of("true", "false", 0, 1, "", new JsonArray(), new JsonObject()), nesting);
      case ITEMS:
        return Arbitraries.oneOf(
            Arbitraries.of("items", 1, true, new JsonObject(), new JsonArray()),
            Arbitraries.integers()
                .between(201, 3_000)
                .map(
                    n -> {
                      JsonArray a = new JsonArray();
                      for (int i = 0; i < n; i++) {
                        a.add(
                            new JsonObject()
                                .put("sku", "S")
                                .put("qty", 1)
                                .put("unitPriceCents", 1));
                      }
                      return (Object) a;
                    }),
            badLine().map(line -> (Object) new JsonArray().add(line)),
            nesting);
      default:
        return notString;
    }
  }

  /** An order line that is invalid. */
  static Arbitrary<Object> badLine() {
    JsonObject line =
        new JsonObject().put("sku", "FUZZ-A").put("qty", 1).put("unitPriceCents", 100);
    return Arbitraries.oneOf(
        Arbitraries.of("sku", "qty", "unitPriceCents")
            .map(f -> (Object) line.copy().put(f + "Evil", 1)),
        Arbitraries.of("sku", "qty", "unitPriceCents").map(f -> (Object) removed(line.copy(), f)),
        wrongTypeFor(Kind.INT).map(v -> (Object) line.copy().put("qty", v)),
        Arbitraries.of(0L, -1L, 1_000_001L, 2_147_483_648L, Long.MIN_VALUE, Long.MAX_VALUE)
            .map(v -> (Object) line.copy().put("qty", v)),
        Arbitraries.of(-1L, 1_000_000_000_001L, Long.MIN_VALUE, Long.MAX_VALUE)
            .map(v -> (Object) line.copy().put("unitPriceCents", v)),
        HostileValues.hugeStrings().map(s -> (Object) line.copy().put("sku", s)),
        Arbitraries.of(1, "line", new JsonArray(), raw("null")));
  }

  static JsonObject removed(JsonObject o, String field) {
    o.remove(field);
    return o;
  }

  /** Values of the field's JSON type that its rules refuse. */
  static Arbitrary<Object> outOfRangeFor(Field f) {
    switch (f.kind()) {
      case INT:
        return Arbitraries.of(
                -1L,
                0L,
                f.min() - 1,
                f.max() == Long.MAX_VALUE ? Long.MIN_VALUE : f.max() + 1,
                2_147_483_648L,
                -2_147_483_649L,
                Long.MIN_VALUE,
                Long.MAX_VALUE)
            .filter(v -> v < f.min() || v > f.max())
            .map(v -> (Object) v);
      case CURRENCY:
        return Arbitraries.oneOf(
                Arbitraries.of("cny", "ZZZ", "CN", "CNYY", "", "C1Y", "\u00c7NY", "' OR 1=1 --"),
                HostileValues.hostileStrings().filter(s -> !s.matches("[A-Z]{3}")))
            .map(v -> (Object) v);
      case INSTANT:
        return HostileValues.hostileStrings()
            .map(
                s ->
                    (Object)
                        ("2026-11-28T00:05:00Z" + s.substring(0, Math.min(s.length(), 70_000))));
      case ITEMS:
        return wrongTypeFor(Kind.ITEMS);
      case BOOL:
        return wrongTypeFor(Kind.BOOL);
      default:
        return Arbitraries.oneOf(
            Arbitraries.just(""),
            Arbitraries.integers()
                .between((int) f.max() + 1, 70_000)
                .map(n -> (Object) "\u00e9".repeat(n)),
            HostileValues.hugeStrings().map(s -> (Object) s));
    }
  }

  /** Mutations after which the body is invalid, whatever else is done to it. */
  static Arbitrary<Mutation> invalidating(BodyRoute route) {
    List<Arbitrary<Mutation>> all = new ArrayList<>();
    all.add(
        Combinators.combine(
                Arbitraries.oneOf(
                    Arbitraries.of("admin", "__proto__", "constructor", "$where", "", "orderid"),
                    HostileValues.hostileStrings()),
                Arbitraries.oneOf(
                    Arbitraries.of(1, "x", true, new JsonObject(), raw("null")),
                    HostileValues.hostileStrings().map(s -> (Object) s)))
            .as(
                (name, value) ->
                    new Mutation(
                        "unknown field " + abbreviate(name),
                        b ->
                            route.fields().stream().anyMatch(f -> f.name().equals(name))
                                ? b.put(name + "_", value)
                                : b.put(name, value))));
    for (Field f : route.fields()) {
      all.add(
          Arbitraries.of(
                  f.name().toUpperCase(), f.name() + " ", "_" + f.name(), f.name() + "\u0000")
              .map(
                  renamed ->
                      new Mutation(
                          "rename " + f.name(),
                          b -> {
                            Object v = b.remove(f.name());
                            return b.put(renamed, v == null ? 1 : v);
                          })));
      all.add(
          wrongTypeFor(f.kind())
              .map(v -> new Mutation("wrong type " + f.name(), b -> b.put(f.name(), v))));
      all.add(
          outOfRangeFor(f)
              .map(v -> new Mutation("out of range " + f.name(), b -> b.put(f.name(), v))));
      if (f.required()) {
        all.add(Arbitraries.just(new Mutation("drop " + f.name(), b -> removed(b, f.name()))));
      }
      if (f.kind() == Kind.TEXT || f.kind() == Kind.ID) {
        all.add(
            HostileValues.unstorableStrings()
                .map(s -> new Mutation("unstorable text in " + f.name(), b -> b.put(f.name(), s))));
      }
    }
    return Arbitraries.oneOf(all);
  }

  /** Mutations that may leave the body valid: combined with at least one invalidating one. */
  static Arbitrary<Mutation> neutral(BodyRoute route) {
    List<Arbitrary<Mutation>> all = new ArrayList<>();
    all.add(Arbitraries.just(new Mutation("none", b -> b)));
    for (Field f : route.fields()) {
      if (f.kind() == Kind.TEXT || f.kind() == Kind.ID) {
        all.add(
            HostileValues.hostileStrings()
                .map(s -> new Mutation("injection in " + f.name(), b -> b.put(f.name(), s))));
      }
      if (!f.required()) {
        all.add(Arbitraries.just(new Mutation("drop " + f.name(), b -> removed(b, f.name()))));
      }
    }
    return Arbitraries.oneOf(all);
  }

  /** Byte-level changes that may leave the body valid (duplicated fields, bad UTF-8...). */
  static Arbitrary<TextMutation> neutralText() {
    return Arbitraries.oneOf(
        Arbitraries.of(
                new byte[] {(byte) 0xc3, 0x28},
                new byte[] {(byte) 0xff},
                new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
                new byte[] {(byte) 0xc0, (byte) 0xaf},
                new byte[] {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80})
            .flatMap(
                bad ->
                    Arbitraries.integers()
                        .between(0, 1_000)
                        .map(
                            at ->
                                new TextMutation(
                                    "invalid UTF-8 at quote " + at, b -> afterQuote(b, at, bad)))),
        Arbitraries.just(
            new TextMutation(
                "duplicate fields",
                b -> {
                  String s = new String(b, StandardCharsets.UTF_8);
                  int open = s.indexOf('{');
                  int close = s.lastIndexOf('}');
                  if (open < 0 || close <= open + 1) {
                    return b;
                  }
                  String members = s.substring(open + 1, close);
                  return ("{" + members + "," + members + "}").getBytes(StandardCharsets.UTF_8);
                })),
        Arbitraries.just(
            new TextMutation(
                "whitespace and BOM",
                b -> concat("\ufeff \n\t".getBytes(StandardCharsets.UTF_8), b))));
  }

  /** Byte-level changes after which the body is invalid JSON or not an object. */
  static Arbitrary<TextMutation> invalidatingText() {
    return Arbitraries.oneOf(
        Arbitraries.doubles()
            .between(0, 1)
            .map(
                frac ->
                    new TextMutation(
                        "truncated",
                        b -> {
                          int at = Math.max(1, Math.min(b.length - 1, (int) (b.length * frac)));
                          return java.util.Arrays.copyOf(b, at);
                        })),
        Arbitraries.of("[", "\"", "1", "null", "tru")
            .map(
                wrap ->
                    new TextMutation(
                        "not an object: " + wrap,
                        b ->
                            wrap.equals("[")
                                ? concat(concat("[".getBytes(), b), "]".getBytes())
                                : wrap.getBytes(StandardCharsets.UTF_8))));
  }

  static byte[] afterQuote(byte[] b, int nth, byte[] insert) {
    List<Integer> quotes = new ArrayList<>();
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '"') {
        quotes.add(i + 1);
      }
    }
    int at = quotes.isEmpty() ? b.length / 2 : quotes.get(nth % quotes.size());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(b, 0, at);
    out.writeBytes(insert);
    out.write(b, at, b.length - at);
    return out.toByteArray();
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  @Provide
  Arbitrary<String> contentTypes() {
    return Arbitraries.of(
        JSON,
        JSON,
        JSON,
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        HostileValues.NO_HEADER,
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz");
  }

  /** Every path segment of every route, replaced by a hostile string (URL-encoded). */
  @Provide
  Arbitrary<Case> hostilePaths() {
    Arbitrary<Case> base =
        Arbitraries.oneOf(
            bodyRoute()
                .map(
                    r -> {
                      Case c = validCase(r, bearer(r.token()));
                      // A receipt for any SKU is valid: keep the body invalid there.
                      return r.path().endsWith("/receipts")
                          ? new Case(
                              "POST",
                              c.path(),
                              c.auth(),
                              c.key(),
                              JSON,
                              "{\"qty\":0}".getBytes(),
                              List.of())
                          : c;
                    }),
            Arbitraries.of(readPaths)
                .map(
                    p ->
                        new Case(
                            "GET",
                            p,
                            bearer(AppHarness.OPERATOR),
                            HostileValues.NO_HEADER,
                            HostileValues.NO_HEADER,
                            new byte[0],
                            List.of())));
    return Combinators.combine(
            base, Arbitraries.integers().between(0, 10), HostileValues.hostileStrings())
        .as(
            (c, n, evil) -> {
              int q = c.path().indexOf('?');
              String path = q < 0 ? c.path() : c.path().substring(0, q);
              String query = q < 0 ? "" : c.path().substring(q);
              String[] segments = path.substring(1).split("/");
              int at = n % segments.length;
              segments[at] = encodeSegment(evil);
              return new Case(
                  c.method(),
                  "/" + String.join("/", segments) + query,
                  c.auth(),
                  c.key(),
                  c.contentType(),
                  c.body(),
                  List.of("segment " + at));
            });
  }

  @Provide
  Arbitrary<String> hostileQueries() {
    Arbitrary<String> value =
        Arbitraries.oneOf(
                Arbitraries.of(
                    "-1",
                    "0",
                    "1",
                    "500",
                    "501",
                    "1000",
                    "1001",
                    "2147483648",
                    "-2147483649",
                    "9223372036854775807",
                    "9223372036854775808",
                    "-9223372036854775808",
                    "1e3",
                    "0x10",
                    "1.5",
                    "NaN",
                    "",
                    " 1",
                    "1 ",
                    "+1",
                    "٣"),
                HostileValues.hostileStrings(),
                HostileValues.extremeInstants())
            .map(HttpFuzzIT::encodeSegment);
    return Combinators.combine(
            Arbitraries.of(
                "/v1/inventory/FUZZ-A/log?limit=%s&limit=%s",
                "/v1/events?after=%s&limit=%s",
                "/v1/events?aggregateType=%s&eventType=%s",
                "/v1/events/stream?after=%s&x=%s",
                "/v1/jobs/daily-report/runs?from=%s&to=%s",
                "/v1/jobs/daily-report/runs?limit=%s&from=%s"),
            value,
            value)
        .as((template, a, b) -> String.format(template, a, b))
        // A valid stream would stay open: only ask for streams that must be refused.
        .filter(q -> !q.startsWith("/v1/events/stream") || !isWhole(q));
  }

  static boolean isWhole(String streamQuery) {
    String after =
        java.net.URLDecoder.decode(
            streamQuery.substring(streamQuery.indexOf('=') + 1, streamQuery.indexOf('&')),
            StandardCharsets.UTF_8);
    try {
      return after.isEmpty() || Long.parseLong(after) >= 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  @Provide
  Arbitrary<Case> extremeInstantCases() {
    Arbitrary<String> instant = HostileValues.extremeInstants();
    return Arbitraries.oneOf(
        instant.map(
            s ->
                new Case(
                    "POST",
                    "/v1/jobs/daily-report/runs",
                    bearer(AppHarness.OPERATOR),
                    freshKey(),
                    JSON,
                    bytes(new JsonObject().put("slot", s)),
                    List.of())),
        Combinators.combine(instant, instant)
            .as(
                (from, to) ->
                    new Case(
                        "POST",
                        "/v1/jobs/retention-cleanup/backfill",
                        bearer(AppHarness.OPERATOR),
                        freshKey(),
                        JSON,
                        bytes(new JsonObject().put("from", from).put("to", to).put("dryRun", true)),
                        List.of())),
        Combinators.combine(instant, instant)
            .as(
                (from, to) ->
                    new Case(
                        "GET",
                        "/v1/jobs/daily-report/runs?from="
                            + encodeSegment(from)
                            + "&to="
                            + encodeSegment(to),
                        bearer(AppHarness.OPERATOR),
                        HostileValues.NO_HEADER,
                        HostileValues.NO_HEADER,
                        new byte[0],
                        List.of())));
  }
}
