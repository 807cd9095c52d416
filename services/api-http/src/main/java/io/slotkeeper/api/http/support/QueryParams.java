package io.slotkeeper.api.http.support;

import io.slotkeeper.api.http.problem.ApiProblem;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;

/** Query parameters, validated with a 400 that names the parameter. */
public final class QueryParams {

  private QueryParams() {}

  /** An optional whole-number parameter in [min, max]. */
  public static int intParam(RoutingContext ctx, String name, int fallback, int min, int max) {
    return (int) longParam(ctx, name, fallback, min, max);
  }

  /** An optional whole-number parameter in [min, max]. */
  public static long longParam(RoutingContext ctx, String name, long fallback, long min, long max) {
    String raw = ctx.request().getParam(name);
    if (raw == null || raw.isEmpty()) {
      return fallback;
    }
    long v;
    try {
      v = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw outOfRange(name, min, max);
    }
    return inRange(name, v, min, max);
  }

  /** {@code v} when in [min, max]; a 400 naming the parameter otherwise. */
  public static long inRange(String name, long v, long min, long max) {
    if (v < min || v > max) {
      throw outOfRange(name, min, max);
    }
    return v;
  }

  private static ApiProblem outOfRange(String name, long min, long max) {
    return ApiProblem.invalid(
        "invalid query parameter " + name,
        Map.of(name, "a whole number from " + min + " to " + max));
  }
}
