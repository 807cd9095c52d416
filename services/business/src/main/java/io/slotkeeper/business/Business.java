package io.slotkeeper.business;

import io.slotkeeper.business.inventory.Inventory;
import io.slotkeeper.business.inventory.InventoryProjection;
import io.slotkeeper.business.orders.Order;
import io.slotkeeper.business.orders.OrderProjection;
import io.slotkeeper.business.orders.RefundProjection;
import io.slotkeeper.commands.DomainModule;
import java.util.List;

/**
 * The example business domain's part of the write side: the {@link Order} (with its refunds) and
 * {@link Inventory} aggregates and their projections into {@code orders}, {@code refunds}, {@code
 * inventory} and {@code inventory_log}.
 */
public final class Business {

  private Business() {}

  /** Orders, refunds and inventory as a domain of the write model. */
  public static DomainModule module() {
    return new DomainModule(
        List.of(Order.class, Inventory.class),
        sql ->
            List.of(
                new OrderProjection(sql), new InventoryProjection(sql), new RefundProjection(sql)),
        connections -> List.of());
  }
}
