package io.slotkeeper.business.orders;

import io.slotkeeper.events.orders.RefundStatus;

/**
 * A refund inside the order aggregate: its amount, why it was requested, where it is in its life. A
 * value (replaced, never mutated), so replayed state compares equal to live state.
 */
record Refund(long amountCents, RefundStatus status, String reason) {

  Refund withStatus(RefundStatus next) {
    return new Refund(amountCents, next, reason);
  }

  /** Requested and issued refunds hold part of the order's amount; rejected ones do not. */
  long heldCents() {
    return status == RefundStatus.REJECTED ? 0 : amountCents;
  }
}
