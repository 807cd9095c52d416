package io.slotkeeper.idempotency;

import java.util.Map;

/** A response saved under an idempotency key, replayed as it was (status, headers, body). */
public record StoredResponse(int status, Map<String, String> headers, String body) {

  public StoredResponse {
    headers = Map.copyOf(headers);
  }
}
