package io.slotkeeper.receiver;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;

/**
 * One attempt of a slot as the receiver sees it: the headers slotkeeper sent (see {@link
 * DeliveryHeaders}) and the body, whose signature has been checked.
 */
public record Delivery(
    String idempotencyKey,
    String schedule,
    Instant slot,
    int attempt,
    long fencingToken,
    byte[] body) {

  public Delivery {
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(body, "body");
  }

  /** The body as UTF-8 text. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
