package io.slotkeeper.operations.idempotency;

import io.slotkeeper.idempotency.StoredResponse;
import io.vertx.core.json.JsonObject;

/** The saved response of a key's request, and whether this answer is a replay of it. */
public record Outcome(StoredResponse response, boolean replayed) {

  /** The saved JSON body. */
  public JsonObject body() {
    return new JsonObject(response.body());
  }
}
