package io.slotkeeper.slots;

import io.slotkeeper.events.slots.SlotStatus;
import java.time.Instant;

/**
 * A slot right after a ledger command. {@code accepted} is false when a fire was refused because
 * the slot had already run (or runs under a newer fencing token): the caller must not do the work.
 */
public record SlotSnapshot(
    String slotId,
    String job,
    Instant nominal,
    SlotStatus status,
    int attempt,
    long fencingToken,
    String instanceId,
    boolean accepted,
    long version) {}
