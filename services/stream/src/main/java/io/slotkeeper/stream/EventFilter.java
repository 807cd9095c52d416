package io.slotkeeper.stream;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/** Which events a subscriber wants: by aggregate type and event type; empty sets match all. */
public record EventFilter(Set<String> aggregateTypes, Set<String> eventTypes) {

  public static final EventFilter ALL = new EventFilter(Set.of(), Set.of());

  public EventFilter {
    aggregateTypes = Set.copyOf(aggregateTypes);
    eventTypes = Set.copyOf(eventTypes);
  }

  /** A filter from comma-separated lists (null or blank: no restriction). */
  public static EventFilter of(String aggregateTypes, String eventTypes) {
    return new EventFilter(split(aggregateTypes), split(eventTypes));
  }

  /** Whether the filter lets every event through. */
  public boolean matchesAll() {
    return aggregateTypes.isEmpty() && eventTypes.isEmpty();
  }

  public boolean matches(String aggregateType, String eventType) {
    return (aggregateTypes.isEmpty() || aggregateTypes.contains(aggregateType))
        && (eventTypes.isEmpty() || eventTypes.contains(eventType));
  }

  private static Set<String> split(String csv) {
    if (csv == null || csv.isBlank()) {
      return Set.of();
    }
    return Arrays.stream(csv.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }
}
