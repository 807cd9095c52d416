package io.slotkeeper.domain;

import static org.awaitility.Awaitility.await;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.testing.TestInfra;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;

/** A fresh database with the schema, and write models on it; closes what it opened. */
public final class WriteModelHarness implements AutoCloseable {

  private final PostgresEndpoint endpoint;
  private final List<AutoCloseable> opened = new ArrayList<>();
  // Opened first so the schema exists before any write model starts.
  private final Database admin;

  public WriteModelHarness(String purpose) {
    endpoint = TestInfra.freshDatabase(purpose);
    admin = Database.open(endpoint, 4, "test-admin");
  }

  /** A new write model (its own command bus and processors) on the shared database. */
  public WriteModel start(String instanceId, boolean startProcessors) {
    Database db = database(8, instanceId);
    WriteModel model = WriteModel.start(db, new WriteModel.Options(instanceId, 4, startProcessors));
    opened.add(model);
    return model;
  }

  /** The JDBC pools of one more client of the shared database, closed with the harness. */
  public Database database(int poolSize, String applicationName) {
    Database db = Database.open(endpoint, poolSize, applicationName);
    opened.add(db);
    return db;
  }

  public PostgresEndpoint endpoint() {
    return endpoint;
  }

  /** Runs a query returning one long. */
  public long queryLong(String sql) {
    return TestInfra.queryLong(endpoint, sql);
  }

  /** Runs a query returning one string. */
  public String queryString(String sql) {
    return TestInfra.queryString(endpoint, sql);
  }

  /** Waits (projections lag) until the query returns the expected string. */
  public void awaitString(String expected, String sql) {
    await().atMost(Duration.ofSeconds(20)).until(() -> expected.equals(queryString(sql)));
  }

  /** Waits (projections lag) until the query returns the expected number. */
  public void awaitLong(long expected, String sql) {
    await().atMost(Duration.ofSeconds(20)).until(() -> queryLong(sql) == expected);
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

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    admin.close();
  }
}
