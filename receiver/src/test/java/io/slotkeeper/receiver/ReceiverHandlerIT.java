package io.slotkeeper.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The Vert.x Web handler over real HTTP, on real PostgreSQL. */
class ReceiverHandlerIT {

  private static final String SECRET = "whsec_receiver_it";
  private static final String BODY = "{\"order\":\"o-1\"}";
  private static ReceiverDatabase db;
  private static Vertx vertx;
  private static int port;
  private static final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    db = new ReceiverDatabase("receiver_handler");
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    ReceiverHandler.builder(db.dataSource, List.of(SECRET), ReceiverDatabase::ship)
        .maxBodyBytes(1024)
        .build()
        .mount(router.post("/deliveries"));
    // a receiver whose database does not answer
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setUrl("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2");
    ReceiverHandler.builder(nowhere, List.of(SECRET), ReceiverDatabase::ship)
        .build()
        .mount(router.post("/unreachable"));
    HttpServer server =
        vertx
            .createHttpServer()
            .requestHandler(router)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    port = server.actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  private static HttpRequest.Builder delivery(String path, String key, long token, String body) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10))
        .header(DeliveryHeaders.IDEMPOTENCY_KEY, key)
        .header(DeliveryHeaders.SCHEDULE, "http-it")
        .header(DeliveryHeaders.SLOT, "2026-01-01T00:00:00Z")
        .header(DeliveryHeaders.ATTEMPT, "1")
        .header(DeliveryHeaders.FENCING_TOKEN, Long.toString(token))
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String signed(String body) {
    return Signature.sign(SECRET, Instant.now().getEpochSecond(), body);
  }

  private static long shipmentsOf(String key) throws SQLException {
    return db.count("SELECT count(*) FROM shipments WHERE idem_key = '" + key + "'");
  }

  @Test
  void aSignedDeliveryIsAppliedOnceAndItsReplayGetsTheSameAnswer() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<String> first =
        send(delivery("/deliveries", key, 5, BODY).header(DeliveryHeaders.SIGNATURE, signed(BODY)));
    HttpResponse<String> replay =
        send(delivery("/deliveries", key, 5, BODY).header(DeliveryHeaders.SIGNATURE, signed(BODY)));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(first.body()).isEqualTo("{\"shipped\":\"" + key + "\"}");
    assertThat(replay.statusCode()).isEqualTo(200);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(shipmentsOf(key)).isEqualTo(1);
  }

  @Test
  void aBadSignatureIs401AndNoEffect() throws Exception {
    String key = UUID.randomUUID().toString();
    HttpResponse<String> forged =
        send(
            delivery("/deliveries", key, 5, BODY)
                .header(
                    DeliveryHeaders.SIGNATURE,
                    Signature.sign("guessed", Instant.now().getEpochSecond(), BODY)));
    HttpResponse<String> unsigned = send(delivery("/deliveries", key, 5, BODY));
    HttpResponse<String> old =
        send(
            delivery("/deliveries", key, 5, BODY)
                .header(
                    DeliveryHeaders.SIGNATURE,
                    Signature.sign(SECRET, Instant.now().getEpochSecond() - 600, BODY)));

    assertThat(forged.statusCode()).isEqualTo(401);
    assertThat(forged.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(forged.body()).contains("MISMATCH").contains("\"Slotkeeper-Signature\"");
    assertThat(unsigned.statusCode()).isEqualTo(401);
    assertThat(unsigned.body()).contains("MISSING");
    assertThat(old.statusCode()).isEqualTo(401);
    assertThat(old.body()).contains("TOO_OLD");
    assertThat(shipmentsOf(key)).isZero();
  }

  @Test
  void badHeadersAre400NamingEachAndNoEffect() throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/deliveries"))
            .header(DeliveryHeaders.SCHEDULE, "http-it")
            .header(DeliveryHeaders.SLOT, "noon")
            .header(DeliveryHeaders.ATTEMPT, "1")
            .header(DeliveryHeaders.FENCING_TOKEN, "-3")
            .header(DeliveryHeaders.SIGNATURE, signed(BODY))
            .POST(HttpRequest.BodyPublishers.ofString(BODY));
    long before = db.effects();

    HttpResponse<String> answer = send(request);

    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(answer.body())
        .contains(
            "\"Idempotency-Key\":\"is required\"",
            "\"Slotkeeper-Slot\":",
            "\"Slotkeeper-Fencing-Token\":")
        .doesNotContain("\"Slotkeeper-Attempt\"");
    assertThat(db.effects()).isEqualTo(before);
  }

  @Test
  void aLowerFencingTokenIs409AndNoEffect() throws Exception {
    String key = UUID.randomUUID().toString();
    String newer = UUID.randomUUID().toString();
    send(
        delivery("/deliveries", newer, 50, BODY)
            .header(DeliveryHeaders.SIGNATURE, signed(BODY))
            .setHeader(DeliveryHeaders.SCHEDULE, "http-it-fenced"));

    HttpResponse<String> stale =
        send(
            delivery("/deliveries", key, 49, BODY)
                .header(DeliveryHeaders.SIGNATURE, signed(BODY))
                .setHeader(DeliveryHeaders.SCHEDULE, "http-it-fenced"));

    assertThat(shipmentsOf(newer)).isEqualTo(1);
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(stale.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(stale.body()).contains("lower than 50");
    assertThat(shipmentsOf(key)).isZero();
  }

  @Test
  void aBodyOverTheLimitIs413() throws Exception {
    String big = "x".repeat(2048);
    String key = UUID.randomUUID().toString();

    HttpResponse<String> answer =
        send(delivery("/deliveries", key, 5, big).header(DeliveryHeaders.SIGNATURE, signed(big)));

    assertThat(answer.statusCode()).isEqualTo(413);
    assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(answer.body()).contains("larger than 1024 bytes");
    assertThat(shipmentsOf(key)).isZero();
  }

  @Test
  void aDatabaseThatDoesNotAnswerIs503SoTheSenderRetries() throws Exception {
    HttpResponse<String> answer =
        send(
            delivery("/unreachable", UUID.randomUUID().toString(), 5, BODY)
                .header(DeliveryHeaders.SIGNATURE, signed(BODY)));

    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.body()).contains("safe to retry");
  }
}
