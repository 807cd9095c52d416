package io.slotkeeper.business.orders;

import io.slotkeeper.events.orders.RefundStatus;

/**
 * A refund right after a command, with the order's refundable balance left. {@code noop} is true
 * when the command found the refund already in the wanted state (issued or rejected twice): nothing
 * was paid or changed a second time.
 */
public record RefundSnapshot(
    String refundId,
    String orderId,
    long amountCents,
    RefundStatus status,
    String reason,
    long refundableCents,
    long version,
    boolean noop) {}
