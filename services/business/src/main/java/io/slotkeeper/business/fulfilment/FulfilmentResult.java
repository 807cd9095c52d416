package io.slotkeeper.business.fulfilment;

import io.slotkeeper.events.orders.OrderStatus;

/** Where a fulfilment run left an order: its status and, for FAILED or CANCELLED, why. */
public record FulfilmentResult(String orderId, OrderStatus status, String reason) {}
