package io.slotkeeper.business.orders;

import io.slotkeeper.events.orders.OrderStatus;

/** An order's state right after a command: what command callers get back. */
public record OrderSnapshot(String orderId, OrderStatus status, long amountCents, long version) {}
