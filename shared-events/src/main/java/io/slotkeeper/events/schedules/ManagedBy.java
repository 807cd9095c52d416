package io.slotkeeper.events.schedules;

/** Who owns a schedule's definition: the API, or a jobs file (which the API may not edit). */
public enum ManagedBy {
  /** Created or last changed through the API. */
  API,
  /** Declared in a jobs file, applied at start-up. */
  FILE
}
