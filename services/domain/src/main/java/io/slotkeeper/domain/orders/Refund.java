package io.slotkeeper.domain.orders;

import io.slotkeeper.events.orders.RefundStatus;

/**
 * A refund inside the order aggregate: its amount, why it was requested, where it is in its life.
 */
final class Refund {

  final long amountCents;
  RefundStatus status;
  final String reason;

  Refund(long amountCents, String reason) {
    this.amountCents = amountCents;
    this.status = RefundStatus.REQUESTED;
    this.reason = reason;
  }

  /** Requested and issued refunds hold part of the order's amount; rejected ones do not. */
  long heldCents() {
    return status == RefundStatus.REJECTED ? 0 : amountCents;
  }
}
