package io.slotkeeper.business.fulfilment;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.inventory.InventoryCommand.CommitReservation;
import io.slotkeeper.events.inventory.InventoryCommand.ReleaseReservation;
import io.slotkeeper.events.inventory.InventoryCommand.ReserveStock;
import io.slotkeeper.events.orders.OrderCommand.CompleteOrder;
import io.slotkeeper.events.orders.OrderCommand.FailOrder;
import io.slotkeeper.events.orders.OrderCommand.StartOrderProcessing;
import io.slotkeeper.events.orders.OrderLine;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The commands of an order's fulfilment, each with a command ID derived from the order and the
 * step. Whoever sends a step again (a re-run after a crash, a second instance) sends the same
 * command, so the ledger answers "duplicate" instead of applying it twice.
 */
public final class FulfilmentSteps {

  private FulfilmentSteps() {}

  public static StartOrderProcessing start(String orderId) {
    return new StartOrderProcessing(DeterministicIds.forStep(orderId, "start", ""), orderId);
  }

  public static ReserveStock reserve(String orderId, String sku, int qty) {
    return new ReserveStock(DeterministicIds.forStep(orderId, "reserve", sku), sku, orderId, qty);
  }

  public static CommitReservation commit(String orderId, String sku) {
    return new CommitReservation(DeterministicIds.forStep(orderId, "commit", sku), sku, orderId);
  }

  public static ReleaseReservation release(String orderId, String sku) {
    return new ReleaseReservation(DeterministicIds.forStep(orderId, "release", sku), sku, orderId);
  }

  public static CompleteOrder complete(String orderId) {
    return new CompleteOrder(DeterministicIds.forStep(orderId, "complete", ""), orderId);
  }

  /** The reason names only the SKU: it is part of the payload, so every re-run must match it. */
  public static FailOrder fail(String orderId, String shortSku) {
    return new FailOrder(
        DeterministicIds.forStep(orderId, "fail", ""),
        orderId,
        "insufficient stock of " + shortSku);
  }

  /** Quantity per SKU, in order of first appearance (one reservation per SKU and order). */
  public static Map<String, Integer> quantities(List<OrderLine> lines) {
    Map<String, Integer> qty = new LinkedHashMap<>();
    for (OrderLine line : lines) {
      qty.merge(line.sku(), line.qty(), Math::addExact);
    }
    return qty;
  }
}
