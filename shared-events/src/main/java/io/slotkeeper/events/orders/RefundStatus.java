package io.slotkeeper.events.orders;

/** A refund's life: REQUESTED -> ISSUED | REJECTED. */
public enum RefundStatus {
  REQUESTED,
  ISSUED,
  REJECTED
}
