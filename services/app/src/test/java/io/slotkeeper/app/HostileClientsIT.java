package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import io.slotkeeper.grpc.v1.Event;
import io.slotkeeper.grpc.v1.EventServiceGrpcClient;
import io.slotkeeper.grpc.v1.GetOrderRequest;
import io.slotkeeper.grpc.v1.OrderServiceGrpcClient;
import io.slotkeeper.grpc.v1.SubscribeRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Hostile and careless clients (issue 25): bombs, broken frames, slow and idle sockets, made-up
 * methods, bad escapes. Each gets a bounded, well-formed answer (a gRPC status with a readable
 * message, or problem+json), costs the service a bounded amount of work and at most one short log
 * line, and leaves nothing running behind it.
 */
class HostileClientsIT {

  static final int MAX_MESSAGE = 64 * 1024;
  static final String ORDER_GET = "/slotkeeper.v1.OrderService/GetOrder";
  static final int SUBSCRIBERS = 6;

  static AppHarness h;
  static RawGrpc raw;
  static final List<ILoggingEvent> logged = new CopyOnWriteArrayList<>();
  static AppenderBase<ILoggingEvent> capture;

  @BeforeAll
  static void start() {
    h =
        new AppHarness(
            "hostile_clients",
            Map.of(
                "SLOTKEEPER_GRPC_MAX_MESSAGE_BYTES", String.valueOf(MAX_MESSAGE),
                "SLOTKEEPER_HTTP_MAX_CONNECTIONS", "40",
                "SLOTKEEPER_HTTP_HEADER_TIMEOUT", "PT2S",
                "SLOTKEEPER_HTTP_BODY_TIMEOUT", "PT1S",
                "SLOTKEEPER_HTTP_IDLE_TIMEOUT", "PT4S",
                "SLOTKEEPER_SUBSCRIBERS_PER_TOKEN", String.valueOf(SUBSCRIBERS),
                "SLOTKEEPER_GRPC_MAX_CONCURRENT_STREAMS", "50"));
    raw = new RawGrpc(h.app.grpcPort());
    capture =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent e) {
            logged.add(e);
          }
        };
    capture.start();
    root().addAppender(capture);
  }

  @AfterAll
  static void stop() throws Exception {
    root().detachAppender(capture);
    raw.close();
    h.close();
  }

  @BeforeEach
  void clearLog() {
    logged.clear();
  }

  static ch.qos.logback.classic.Logger root() {
    return (ch.qos.logback.classic.Logger)
        LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  // ---- gRPC: compression ----

  @Test
  void aDecompressionBombIsRefusedWhileInflating() throws Exception {
    byte[] bomb = gzip(new byte[50 * 1024 * 1024]);
    assertThat(bomb.length).isLessThan(MAX_MESSAGE);
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of("grpc-encoding", "gzip"), frame(1, bomb), true);
    assertThat(a.status()).isEqualTo("8"); // RESOURCE_EXHAUSTED
    assertThat(a.message()).contains("inflates to more than the limit of " + MAX_MESSAGE);
  }

  @Test
  void anUnauthenticatedBombIsRefusedBeforeItsBodyIsRead() throws Exception {
    byte[] bomb = gzip(new byte[50 * 1024 * 1024]);
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of("grpc-encoding", "gzip"), frame(1, bomb), false);
    assertThat(a.status()).isEqualTo("16"); // UNAUTHENTICATED
    // The spec's encoding only: printable ASCII stays as it is.
    assertThat(a.message()).contains("'Authorization: Bearer <token>'");
  }

  @Test
  void aCompressedMessageWithinTheLimitIsServed() throws Exception {
    byte[] get = GetOrderRequest.newBuilder().setOrderId("no-such-order").build().toByteArray();
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of("grpc-encoding", "gzip"), frame(1, gzip(get)), true);
    assertThat(a.status()).isEqualTo("5"); // NOT_FOUND: decoded and served
  }

  @Test
  void anUnsupportedEncodingIsUnimplemented() throws Exception {
    RawGrpc.Answer a =
        grpc(ORDER_GET, Map.of("grpc-encoding", "br"), frame(1, new byte[] {1, 2}), true);
    assertThat(a.status()).isEqualTo("12"); // UNIMPLEMENTED
    assertThat(a.message()).contains("grpc-encoding 'br' is not supported");
    assertThat(a.headers().get("grpc-accept-encoding")).isEqualTo("gzip");
  }

  @Test
  void theCompressedFlagWithoutAnEncodingIsInternal() throws Exception {
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), frame(1, gzip(new byte[] {10, 1, 'x'})), true);
    assertThat(a.status()).isEqualTo("13"); // INTERNAL
    assertThat(a.message()).contains("compressed message arrived without grpc-encoding");
  }

  @Test
  void theGrpcPortAnnouncesItsStreamLimit() throws Exception {
    assertThat(raw.serverMaxConcurrentStreams()).isEqualTo(50);
  }

  // ---- gRPC: framing and messages ----

  @Test
  void aUnaryCallWithoutAMessageIsInvalidArgument() throws Exception {
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), Buffer.buffer(), true);
    assertThat(a.status()).isEqualTo("3");
    assertThat(a.message()).contains("one request message, got none");
  }

  @Test
  void aUnaryCallWithTwoMessagesIsInvalidArgument() throws Exception {
    byte[] get = GetOrderRequest.newBuilder().setOrderId("o").build().toByteArray();
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), frame(0, get).appendBuffer(frame(0, get)), true);
    assertThat(a.status()).isEqualTo("3");
    assertThat(a.message()).contains("one request message, got more");
  }

  @Test
  void aLengthPrefixLongerThanTheDataIsInternal() throws Exception {
    Buffer body = Buffer.buffer().appendByte((byte) 0).appendInt(100).appendBytes(new byte[10]);
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), body, true);
    assertThat(a.status()).isEqualTo("13");
    assertThat(a.message()).contains("ended inside a message");
  }

  @Test
  void aThreeByteFrameIsInternal() throws Exception {
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), Buffer.buffer(new byte[] {0, 0, 0}), true);
    assertThat(a.status()).isEqualTo("13");
    assertThat(a.message()).contains("ended inside a message");
  }

  @Test
  void aMessageLongerThanTheLimitIsResourceExhaustedWithAMessage() throws Exception {
    Buffer body = Buffer.buffer().appendByte((byte) 0).appendInt(MAX_MESSAGE + 1);
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), body, true);
    assertThat(a.status()).isEqualTo("8");
    assertThat(a.message()).contains("exceeds the limit of " + MAX_MESSAGE);
  }

  @Test
  void malformedProtobufIsInvalidArgument() throws Exception {
    RawGrpc.Answer a = grpc(ORDER_GET, Map.of(), frame(0, new byte[] {0, 0, 0}), true);
    assertThat(a.status()).isEqualTo("3");
    assertThat(a.message()).contains("the request message is malformed");
  }

  @Test
  void invalidUtf8IsInvalidArgument() throws Exception {
    RawGrpc.Answer a =
        grpc(ORDER_GET, Map.of(), frame(0, new byte[] {10, 2, (byte) 0xC3, 0x28}), true);
    assertThat(a.status()).isEqualTo("3");
    assertThat(a.message()).containsIgnoringCase("UTF-8");
  }

  @Test
  void aKeyIsTheSameWithOrWithoutSurroundingSpacesOverGrpcAsOverHttp() {
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      io.slotkeeper.grpc.v1.PlaceOrderRequest.Builder place =
          io.slotkeeper.grpc.v1.PlaceOrderRequest.newBuilder()
              .setCustomerId("c-trim")
              .setCurrency("CNY")
              .addItems(
                  io.slotkeeper.grpc.v1.OrderLine.newBuilder()
                      .setSku("TRIM")
                      .setQty(1)
                      .setUnitPriceCents(100));
      var first =
          grpc.call(
              OrderServiceGrpcClient.PlaceOrder,
              place.setIdempotencyKey("  trim-key-1\t").build(),
              AppHarness.CLIENT);
      assertThat(first.status()).as(first.message()).isEqualTo(GrpcStatus.OK);
      var again =
          grpc.call(
              OrderServiceGrpcClient.PlaceOrder,
              place.setIdempotencyKey("trim-key-1").build(),
              AppHarness.CLIENT);
      assertThat(again.status()).isEqualTo(GrpcStatus.OK);
      assertThat(again.headers().get("idempotent-replayed")).isEqualTo("true");
    }
  }

  // ---- gRPC: subscriptions ----

  @Test
  void aCancelledSubscribeStopsFollowingTheStore() throws Exception {
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      subscribe(grpc, 5).forEach(GrpcTestClient.Stream::cancel);
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> subscribers() == 0);
    }
  }

  @Test
  void aSubscribeWhoseConnectionClosesStopsFollowingTheStore() throws Exception {
    GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort());
    subscribe(grpc, 3);
    grpc.close();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> subscribers() == 0);
  }

  @Test
  void anSseStreamWhoseConnectionClosesStopsFollowingTheStore() throws Exception {
    try (Socket s = socket()) {
      s.getOutputStream()
          .write(
              ascii(
                  "GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      + AppHarness.CLIENT
                      + "\r\n\r\n"));
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> subscribers() == 1);
    }
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> subscribers() == 0);
  }

  @Test
  void aTokenHoldsAtMostItsShareOfSubscriptions() throws Exception {
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      List<GrpcTestClient.Stream<SubscribeRequest, Event>> streams = subscribe(grpc, SUBSCRIBERS);
      var refused = subscribeOnce(grpc);
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> refused.ended);
      assertThat(refused.status).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      assertThat(refused.message).contains("live event subscriptions (the limit)");
      var sse = h.get("/v1/events/stream", AppHarness.CLIENT);
      assertThat(sse.statusCode()).isEqualTo(429);
      assertThat(sse.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      streams.forEach(GrpcTestClient.Stream::cancel);
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> subscribers() == 0);
    }
  }

  @Test
  void idleSubscribersCostNoQueries() throws Exception {
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      List<GrpcTestClient.Stream<SubscribeRequest, Event>> streams = subscribe(grpc, 5);
      Thread.sleep(500); // each has read its first page and caught up
      long before = metric("slotkeeper_event_pages_total");
      Thread.sleep(2000);
      // Polling on their own, five idle subscribers read 100 pages in 2 s.
      assertThat(metric("slotkeeper_event_pages_total") - before).isLessThanOrEqualTo(5);
      streams.forEach(GrpcTestClient.Stream::cancel);
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> subscribers() == 0);
    }
  }

  @Test
  void subscribersFollowingWritesReadNoPagesOfTheirOwn() throws Exception {
    try (GrpcTestClient grpc = new GrpcTestClient(h.app.grpcPort())) {
      List<GrpcTestClient.Stream<SubscribeRequest, Event>> streams = subscribe(grpc, 5);
      Thread.sleep(500); // each has read its first page and caught up
      streams.forEach(s -> s.received.clear());
      long before = metric("slotkeeper_event_pages_total");
      for (int i = 0; i < 10; i++) {
        var r =
            h.post(
                "/v1/inventory/TAIL-" + i + "/receipts",
                AppHarness.CLIENT,
                "tail-receipt-" + i,
                "{\"qty\":1}");
        assertThat(r.statusCode() / 100).isEqualTo(2);
        Thread.sleep(150); // the store's head moves ten times, each seen by the instance's tail
      }
      Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> streams.stream().allMatch(s -> s.received.size() >= 10));
      // Reading on their own, each of the five read a page or two at every move: 100 pages.
      assertThat(metric("slotkeeper_event_pages_total") - before).isLessThanOrEqualTo(5);
      streams.forEach(GrpcTestClient.Stream::cancel);
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> subscribers() == 0);
    }
  }

  /** Opens {@code n} Subscribe streams with the client token; returns once all are live. */
  static List<GrpcTestClient.Stream<SubscribeRequest, Event>> subscribe(
      GrpcTestClient grpc, int n) {
    List<GrpcTestClient.Stream<SubscribeRequest, Event>> streams = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      streams.add(subscribeOnce(grpc));
    }
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> subscribers() == n);
    return streams;
  }

  static GrpcTestClient.Stream<SubscribeRequest, Event> subscribeOnce(GrpcTestClient grpc) {
    return grpc.stream(
        EventServiceGrpcClient.Subscribe, SubscribeRequest.getDefaultInstance(), AppHarness.CLIENT);
  }

  static long subscribers() {
    return metric("slotkeeper_event_subscribers");
  }

  /** The sum of a metric's series on /metrics. */
  static long metric(String name) {
    String metrics = h.get("/metrics", null).body();
    return metrics
        .lines()
        .filter(l -> l.startsWith(name + "{"))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  // ---- HTTP: slow, idle and too many sockets ----

  @Test
  void headersThatNeverFinishAreCutOff() throws Exception {
    try (Socket s = socket()) {
      s.getOutputStream().write(ascii("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n"));
      long start = System.nanoTime();
      assertThat(s.getInputStream().read()).isEqualTo(-1); // closed by the server
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void anIdleSocketIsClosed() throws Exception {
    try (Socket s = socket()) {
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void aBodyThatNeverFinishesGets408AndTheConnectionCloses() throws Exception {
    try (Socket s = socket()) {
      s.getOutputStream().write(ascii(postOrder("slow-body", "Content-Length: 100\r\n\r\n{\"cu")));
      String answer = readAll(s);
      assertThat(answer).startsWith("HTTP/1.1 408").contains("application/problem+json");
    }
  }

  @Test
  void connectionsBeyondTheLimitAreClosedAtOnce() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < 60; i++) {
        sockets.add(socket());
      }
      Thread.sleep(300);
      int closed = 0;
      for (Socket s : sockets) {
        s.setSoTimeout(200);
        try {
          if (s.getInputStream().read() == -1) {
            closed++;
          }
        } catch (SocketTimeoutException stillOpen) {
          // open, waiting for its request
        } catch (IOException reset) {
          closed++;
        }
      }
      // 40 allowed (minus any the other tests hold): at least 20 were refused at once.
      assertThat(closed).isGreaterThanOrEqualTo(20);
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
    // and the service answers again once they are gone
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> h.get("/health/live", null).statusCode() == 200);
  }

  // ---- HTTP: bad requests answer problem+json and log at most a short line ----

  @Test
  void aMalformedPercentEscapeIs400ProblemWithoutAStackTrace() throws Exception {
    assertCheap400Problem("GET /v1/orders/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  }

  @Test
  void aRequestWithoutHostIs400Problem() throws Exception {
    assertCheap400Problem("GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n");
  }

  /** The request is answered 400 problem+json and costs at most a short log line. */
  static void assertCheap400Problem(String request) throws IOException {
    assertThat(exchange(request)).startsWith("HTTP/1.1 400").contains("application/problem+json");
    assertLogCostAtMost(300);
  }

  /**
   * Vert.x's decoder closes the connection itself on a malformed chunk line, so no answer can be
   * sent; what matters is that it is not a 500, and not an ERROR with a stack trace.
   */
  @Test
  void aChunkLineEndingInABareLineFeedIsNeverA500() throws Exception {
    String answer =
        exchange(
            postOrder("bare-lf", "Transfer-Encoding: chunked\r\n")
                + "Connection: close\r\n\r\n2\n{}\r\n0\r\n\r\n");
    if (!answer.isEmpty()) {
      assertThat(answer).startsWith("HTTP/1.1 400").contains("application/problem+json");
    }
    assertLogCostAtMost(300);
  }

  @Test
  void anAsteriskTargetIsAProblem() throws Exception {
    String answer = exchange("GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(answer).matches("(?s)HTTP/1.1 4\\d\\d .*").contains("application/problem+json");
  }

  @Test
  void aTooLongRequestLineIs414Problem() throws Exception {
    String answer =
        exchange(
            "GET /" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assertThat(answer).matches("(?s)HTTP/1.[01] 414 .*").contains("application/problem+json");
  }

  @Test
  void tooLargeHeadersAre431Problem() throws Exception {
    String answer =
        exchange(
            "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: "
                + "a".repeat(10_000)
                + "\r\nConnection: close\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 431").contains("application/problem+json");
  }

  @Test
  void aMalformedHeaderLineIs400Problem() throws Exception {
    String answer =
        exchange(
            "GET /health/live HTTP/1.1\r\nHost: x\r\nno colon here\r\nConnection: close\r\n\r\n");
    assertThat(answer).startsWith("HTTP/1.1 400").contains("application/problem+json");
  }

  @Test
  void aClientLeavingMidBodyLogsNoError() throws Exception {
    try (Socket s = socket()) {
      s.getOutputStream().write(ascii(postOrder("gone", "Content-Length: 100\r\n\r\n{\"cu")));
      s.getOutputStream().flush();
      Thread.sleep(100);
    }
    Thread.sleep(500);
    assertThat(logged).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR));
  }

  @Test
  void aCommandOnAnUnknownAggregateLogsNoStackTrace() {
    var r =
        h.post(
            "/v1/orders/no-such-order/cancel",
            AppHarness.CLIENT,
            "unknown-aggregate-1",
            "{\"reason\":\"x\"}");
    assertThat(r.statusCode()).isEqualTo(404);
    assertLogCostAtMost(400);
    // It changed nothing, so its key is not kept: a client cannot grow the key table with 404s.
    assertThat(
            h.count(
                "SELECT count(*) FROM idempotency_keys WHERE idem_key LIKE '%unknown-aggregate-1'"))
        .isZero();
  }

  @Test
  void madeUpMethodsDoNotBecomeMetricLabels() throws Exception {
    for (String method : List.of("BREW", "XYZZY", "FROB")) {
      exchange(method + " /v1/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
    String metrics = h.get("/metrics", null).body();
    assertThat(metrics).doesNotContain("BREW").doesNotContain("XYZZY").doesNotContain("FROB");
    assertThat(metrics).contains("method=\"other\"");
  }

  // ---- helpers ----

  /** What a bad request wrote to the log: no ERROR, no stack trace, at most {@code bytes}. */
  static void assertLogCostAtMost(int bytes) {
    long total = 0;
    for (ILoggingEvent e : logged) {
      String what = e.getLoggerName() + ": " + e.getFormattedMessage();
      assertThat(e.getLevel()).as(what).isNotEqualTo(Level.ERROR);
      assertThat(e.getThrowableProxy()).as(what).isNull();
      total += e.getFormattedMessage().length();
      if (e.getThrowableProxy() != null) {
        total += ThrowableProxyUtil.asString(e.getThrowableProxy()).length();
      }
    }
    assertThat(total).as("log bytes of one bad request").isLessThanOrEqualTo(bytes);
  }

  static RawGrpc.Answer grpc(String path, Map<String, String> headers, Buffer body, boolean token)
      throws Exception {
    return raw.call(path, headers, body, token ? AppHarness.CLIENT : null);
  }

  static Buffer frame(int flag, byte[] payload) {
    return RawGrpc.frame(flag, payload);
  }

  static byte[] gzip(byte[] data) throws IOException {
    return RawGrpc.gzip(data);
  }

  /** A request placing an order with {@code key}: its head up to {@code rest} (framing, body). */
  static String postOrder(String key, String rest) {
    return "POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Authorization: Bearer "
        + AppHarness.CLIENT
        + "\r\nIdempotency-Key: "
        + key
        + "\r\n"
        + rest;
  }

  static Socket socket() throws IOException {
    Socket s = new Socket("127.0.0.1", h.app.httpPort());
    s.setSoTimeout(10_000);
    return s;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  static String exchange(String request) throws IOException {
    try (Socket s = socket()) {
      s.getOutputStream().write(ascii(request));
      s.getOutputStream().flush();
      return readAll(s);
    }
  }

  static String readAll(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    int n;
    try {
      while ((n = in.read(b)) > 0) {
        out.write(b, 0, n);
      }
    } catch (IOException e) {
      // a reset after the answer: keep what arrived
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }
}
