package io.slotkeeper.events.orders;

/** The order state machine: NEW -> PROCESSING -> COMPLETED | FAILED, and NEW -> CANCELLED. */
public enum OrderStatus {
  NEW,
  PROCESSING,
  COMPLETED,
  FAILED,
  CANCELLED;

  /** Whether an order in this state may move to {@code next}. */
  public boolean canMoveTo(OrderStatus next) {
    switch (this) {
      case NEW:
        return next == PROCESSING || next == CANCELLED;
      case PROCESSING:
        return next == COMPLETED || next == FAILED;
      default:
        return false;
    }
  }
}
