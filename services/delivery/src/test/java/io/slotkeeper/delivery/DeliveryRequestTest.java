package io.slotkeeper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.receiver.DeliveryHeaders;
import io.slotkeeper.receiver.Signature;
import io.slotkeeper.scheduler.schedule.job.HttpTarget;
import io.slotkeeper.slots.SlotRun;
import io.vertx.core.buffer.Buffer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeliveryRequestTest {

  private static final Instant NOMINAL = Instant.parse("2026-01-01T00:00:00Z");
  private static final HttpTarget TARGET =
      new HttpTarget(
          URI.create("https://a.example.com/hook"),
          "POST",
          Map.of("X-Team", "blue"),
          "{\"schedule\":\"{{schedule}}\",\"slot\":\"{{slot}}\",\"attempt\":{{attempt}},"
              + "\"id\":\"{{slotId}}\"}",
          Duration.ofSeconds(10),
          "TEAM",
          0);

  private static SlotRun run(int attempt, long token) {
    return new SlotRun("nightly", NOMINAL, "slot-1", attempt, Map.of(), token);
  }

  @Test
  void theBodyTemplateGetsTheSlotsFields() {
    assertThat(DeliveryRequest.render(TARGET.body(), run(2, 7)))
        .isEqualTo(
            "{\"schedule\":\"nightly\",\"slot\":\"2026-01-01T00:00:00Z\",\"attempt\":2,"
                + "\"id\":\"slot-1\"}");
  }

  @Test
  void everyAttemptCarriesTheSameKeyItsNumberTheTokenAndAValidSignature() {
    Instant now = Instant.parse("2026-01-01T00:00:05Z");
    DeliveryRequest first = DeliveryRequest.of(TARGET, run(1, 7), Optional.of("whsec_x"), now);
    DeliveryRequest retry = DeliveryRequest.of(TARGET, run(3, 9), Optional.of("whsec_x"), now);
    assertThat(first.idempotencyKey())
        .isEqualTo(retry.idempotencyKey())
        .isEqualTo(first.headers().get(DeliveryHeaders.IDEMPOTENCY_KEY))
        .isEqualTo(run(1, 7).commandId("http"));
    assertThat(retry.headers())
        .containsEntry(DeliveryHeaders.SCHEDULE, "nightly")
        .containsEntry(DeliveryHeaders.SLOT, "2026-01-01T00:00:00Z")
        .containsEntry(DeliveryHeaders.ATTEMPT, "3")
        .containsEntry(DeliveryHeaders.FENCING_TOKEN, "9")
        .containsEntry("X-Team", "blue");
    assertThat(
            Signature.verify(
                    "whsec_x",
                    first.headers().get(DeliveryHeaders.SIGNATURE),
                    first.body(),
                    now,
                    Signature.DEFAULT_TOLERANCE)
                .valid())
        .isTrue();
    assertThat(DeliveryRequest.of(TARGET, run(1, 7), Optional.empty(), now).headers())
        .doesNotContainKey(DeliveryHeaders.SIGNATURE);
  }

  @Test
  void statusesRetryAfterAndTheResponseHeadAreRead() {
    assertThat(AttemptRecord.classify(204)).isEqualTo(AttemptRecord.Outcome.DELIVERED);
    assertThat(AttemptRecord.classify(429)).isEqualTo(AttemptRecord.Outcome.RETRY_STATUS);
    assertThat(AttemptRecord.classify(408)).isEqualTo(AttemptRecord.Outcome.RETRY_STATUS);
    assertThat(AttemptRecord.classify(503)).isEqualTo(AttemptRecord.Outcome.RETRY_STATUS);
    assertThat(AttemptRecord.classify(409)).isEqualTo(AttemptRecord.Outcome.STALE);
    assertThat(AttemptRecord.classify(404)).isEqualTo(AttemptRecord.Outcome.REFUSED);
    assertThat(AttemptRecord.classify(302)).isEqualTo(AttemptRecord.Outcome.REFUSED);
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(HttpDelivery.retryAfter("7", now)).isEqualTo(Duration.ofSeconds(7));
    assertThat(HttpDelivery.retryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(HttpDelivery.retryAfter("soon", now)).isNull();
    String big = "é".repeat(2000);
    String head = HttpDelivery.head(Buffer.buffer(big.getBytes(StandardCharsets.UTF_8)));
    assertThat(head.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024 + 3);
    assertThat(head).startsWith("éé");
  }
}
