package io.slotkeeper.operations.support;

import io.vertx.core.json.JsonObject;
import java.util.Map;

/** A route's answer before it is written: status, JSON body, extra headers. */
public record ApiResponse(int status, JsonObject body, Map<String, String> headers) {

  public static ApiResponse ok(JsonObject body) {
    return new ApiResponse(200, body, Map.of());
  }

  public static ApiResponse created(JsonObject body, String location) {
    return new ApiResponse(201, body, Map.of("Location", location));
  }
}
