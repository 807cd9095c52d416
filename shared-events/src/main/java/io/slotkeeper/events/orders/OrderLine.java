package io.slotkeeper.events.orders;

/** One line of an order: a quantity of a SKU at a unit price in minor units (cents, fen). */
public record OrderLine(String sku, int qty, long unitPriceCents) {

  /** The line's total; throws {@link ArithmeticException} on overflow instead of wrapping. */
  public long totalCents() {
    return Math.multiplyExact(unitPriceCents, (long) qty);
  }
}
