package io.slotkeeper.business.jobs;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** A job's effect counts; every key starts at zero so the ledger always shows all of them. */
final class Tally {

  private final Map<String, Long> counts = new LinkedHashMap<>();

  Tally(String... keys) {
    for (String key : keys) {
      counts.put(key, 0L);
    }
  }

  Tally add(String key, long n) {
    if (!counts.containsKey(key)) {
      throw new IllegalArgumentException("unknown count " + key);
    }
    counts.merge(key, n, Long::sum);
    return this;
  }

  Tally add(String key) {
    return add(key, 1);
  }

  Map<String, Long> toMap() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(counts));
  }
}
