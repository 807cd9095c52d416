package io.slotkeeper.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Keeps label values that a client chooses within a known set: Vert.x labels its HTTP meters with
 * the request's method as sent, so every made-up method name would start new series (a few hundred
 * requests made thousands and slowed every scrape). Methods outside the standard ones become {@code
 * other}.
 */
public final class BoundedLabels {

  static final Set<String> METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE");

  private BoundedLabels() {}

  /** The filter to register on the registry before any meter. */
  public static MeterFilter filter() {
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        String method = id.getTag("method");
        if (method == null || METHODS.contains(method) || !id.getName().startsWith("vertx.")) {
          return id;
        }
        List<Tag> tags =
            id.getTags().stream()
                .map(t -> t.getKey().equals("method") ? Tag.of("method", "other") : t)
                .collect(Collectors.toList());
        return id.replaceTags(tags);
      }
    };
  }
}
