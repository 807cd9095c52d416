package io.slotkeeper.platform.axon;

/**
 * Marks an exception that refuses a command transaction for the caller's reason, not the
 * infrastructure's (e.g. an Idempotency-Key taken by another request, thrown at commit by a module
 * the write side does not know): counted as a rejected command, not a failed one, so the alert on
 * failed commands stays about the infrastructure.
 */
public interface CallerRefusal {}
