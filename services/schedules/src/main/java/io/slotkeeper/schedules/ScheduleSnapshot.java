package io.slotkeeper.schedules;

import io.slotkeeper.events.schedules.ManagedBy;
import io.slotkeeper.events.schedules.ScheduleDefinition;

/**
 * A schedule after a command: its version (the number of its events, the API's {@code ETag}) and
 * state; {@code noop} when the command changed nothing.
 */
public record ScheduleSnapshot(
    String name,
    ScheduleDefinition definition,
    ManagedBy managedBy,
    String source,
    ScheduleState state,
    long version,
    boolean noop) {}
