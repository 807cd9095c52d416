package io.slotkeeper.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeliveryHeadersTest {

  @Test
  void readsADelivery() {
    Map<String, String> headers = new HashMap<>();
    headers.put(DeliveryHeaders.IDEMPOTENCY_KEY, "7c9e6679-7425-40de-944b-e07fc1f90ae7");
    headers.put(DeliveryHeaders.SCHEDULE, "nightly-report");
    headers.put(DeliveryHeaders.SLOT, "2026-01-01T00:00:00Z");
    headers.put(DeliveryHeaders.ATTEMPT, "2");
    headers.put(DeliveryHeaders.FENCING_TOKEN, "41");
    Delivery d = DeliveryHeaders.read(headers::get, new byte[] {'x'});
    assertThat(d.idempotencyKey()).isEqualTo("7c9e6679-7425-40de-944b-e07fc1f90ae7");
    assertThat(d.schedule()).isEqualTo("nightly-report");
    assertThat(d.slot()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(d.attempt()).isEqualTo(2);
    assertThat(d.fencingToken()).isEqualTo(41);
    assertThat(d.bodyText()).isEqualTo("x");
  }

  @Test
  void namesEveryBadHeader() {
    Map<String, String> headers = new HashMap<>();
    headers.put(DeliveryHeaders.IDEMPOTENCY_KEY, "k".repeat(256));
    headers.put(DeliveryHeaders.SCHEDULE, "caf\u00e9");
    headers.put(DeliveryHeaders.SLOT, "yesterday");
    headers.put(DeliveryHeaders.ATTEMPT, "0");
    DeliveryHeaders.InvalidDeliveryException e =
        catchThrowableOfType(
            DeliveryHeaders.InvalidDeliveryException.class,
            () -> DeliveryHeaders.read(headers::get, new byte[0]));
    assertThat(e.errors())
        .containsOnlyKeys(
            DeliveryHeaders.IDEMPOTENCY_KEY,
            DeliveryHeaders.SCHEDULE,
            DeliveryHeaders.SLOT,
            DeliveryHeaders.ATTEMPT,
            DeliveryHeaders.FENCING_TOKEN);
    assertThat(e.errors().get(DeliveryHeaders.FENCING_TOKEN)).isEqualTo("is required");
    assertThat(e.errors().get(DeliveryHeaders.SCHEDULE)).contains("character 4");
  }
}
