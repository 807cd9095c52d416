package io.slotkeeper.idempotency;

import io.slotkeeper.events.Digests;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The identity of a request for idempotency: SHA-256 of its operation and its canonical JSON
 * (object keys sorted), so the same request over HTTP or gRPC, with keys in any order or other
 * whitespace, has the same fingerprint.
 */
public final class RequestFingerprint {

  private RequestFingerprint() {}

  public static String of(String operation, JsonObject request) {
    String canonical = operation + "\n" + canonical(request);
    return Digests.sha256Hex(canonical.getBytes(StandardCharsets.UTF_8));
  }

  static Object canonical(Object value) {
    if (value instanceof JsonObject) {
      Map<String, Object> sorted = new TreeMap<>();
      ((JsonObject) value).forEach(e -> sorted.put(e.getKey(), canonical(e.getValue())));
      return new JsonObject(sorted); // wraps the sorted map: its entries encode in key order
    }
    if (value instanceof JsonArray) {
      JsonArray out = new JsonArray();
      ((JsonArray) value).forEach(v -> out.add(canonical(v)));
      return out;
    }
    return value;
  }
}
