package io.slotkeeper.delivery;

import io.slotkeeper.receiver.DeliveryHeaders;
import io.slotkeeper.receiver.Signature;
import io.slotkeeper.scheduler.schedule.job.HttpTarget;
import io.slotkeeper.slots.SlotRun;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one attempt of a slot sends to its target: the rendered body and every header, the key and
 * the fence included. Pure, so the same slot renders the same request on every attempt but for the
 * attempt number, the token and the signature's time.
 *
 * @param idempotencyKey {@code v5(schedule, nominal, "http")}: the same on every attempt
 */
public record DeliveryRequest(
    String method, String idempotencyKey, Map<String, String> headers, byte[] body) {

  /** The target of every HTTP delivery's Idempotency-Key, under the slot's deterministic IDs. */
  static final String KEY_TARGET = "http";

  /** The request for attempt {@code run} of the target, signed under {@code secret} if given. */
  public static DeliveryRequest of(
      HttpTarget target, SlotRun run, Optional<String> secret, Instant now) {
    byte[] body = render(target.body(), run).getBytes(StandardCharsets.UTF_8);
    String key = run.commandId(KEY_TARGET);
    Map<String, String> headers = new LinkedHashMap<>(target.headers());
    headers.put(DeliveryHeaders.IDEMPOTENCY_KEY, key);
    headers.put(DeliveryHeaders.SCHEDULE, run.job());
    headers.put(DeliveryHeaders.SLOT, run.nominal().toString());
    headers.put(DeliveryHeaders.ATTEMPT, Integer.toString(run.attempt()));
    headers.put(DeliveryHeaders.FENCING_TOKEN, Long.toString(run.fencingToken()));
    secret.ifPresent(
        s -> headers.put(DeliveryHeaders.SIGNATURE, Signature.sign(s, now.getEpochSecond(), body)));
    return new DeliveryRequest(target.method(), key, Map.copyOf(headers), body);
  }

  /**
   * The body template with the slot's fields in place: {@code {{schedule}}}, {@code {{slot}}}
   * (ISO-8601 nominal), {@code {{attempt}}} and {@code {{slotId}}}. The values are inserted as they
   * are: schedule names, instants, numbers and UUIDs need no escaping in JSON strings.
   */
  public static String render(String template, SlotRun run) {
    return template
        .replace("{{schedule}}", run.job())
        .replace("{{slot}}", run.nominal().toString())
        .replace("{{attempt}}", Integer.toString(run.attempt()))
        .replace("{{slotId}}", run.slotId());
  }
}
