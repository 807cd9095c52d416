package io.slotkeeper.api.http.support;

import io.slotkeeper.operations.support.Ranges;
import io.vertx.ext.web.RoutingContext;

/** Query parameters, validated with a 400 that names the parameter ({@link Ranges}). */
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
      throw Ranges.outOfRange(name, min, max);
    }
    return Ranges.inRange(name, v, min, max);
  }
}
