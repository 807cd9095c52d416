package io.slotkeeper.business;

import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.slots.SlotLedger;
import io.slotkeeper.testing.DatabaseHarness;
import java.util.List;
import java.util.Map;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;

/** A fresh database, and write models of the business domain and the slot ledger on it. */
public final class WriteModelHarness extends DatabaseHarness {

  public WriteModelHarness(String purpose) {
    super(purpose);
  }

  /** A new write model (its own command bus and processors) on the shared database. */
  public WriteModel start(String instanceId, boolean startProcessors) {
    Database db = database(8, instanceId);
    return closing(
        WriteModel.start(
            db,
            List.of(Business.module(), SlotLedger.module()),
            new WriteModel.Options(instanceId, 4, startProcessors)));
  }

  /** The order fulfilment flow on a write model of this harness, closed with the harness. */
  public OrderFulfilment fulfilment(WriteModel model) {
    return closing(new OrderFulfilment(model, database(2, "fulfilment").dataSource()));
  }

  /** The first event of a SKU's stock, as a command would store it (for tests that append). */
  public static DomainEventMessage<StockReceived> firstStockReceived(String sku) {
    return new GenericDomainEventMessage<>(
        "Inventory",
        StreamIds.inventory(sku),
        0,
        new StockReceived(sku, 5, "test", 5, 0),
        Map.of("commandId", "cmd-" + sku));
  }
}
