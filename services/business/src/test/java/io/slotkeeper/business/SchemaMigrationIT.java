package io.slotkeeper.business;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.inventory.InventorySnapshot;
import io.slotkeeper.business.orders.OrderSnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.inventory.InventoryCommand.ReceiveStock;
import io.slotkeeper.events.orders.OrderCommand.CancelOrder;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.orders.OrderStatus;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.testing.TestInfra;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Several instances starting at once on an empty database migrate it exactly once; streams stored
 * before the stream IDs were namespaced are renamed and still load.
 */
class SchemaMigrationIT {

  @Test
  void concurrentStartUpsMigrateOnce() throws Exception {
    PostgresEndpoint db = TestInfra.freshDatabase("migrate");
    int instances = 4;
    ExecutorService pool = Executors.newFixedThreadPool(instances);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Database>> opened = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      String id = "instance-" + i;
      opened.add(
          pool.submit(
              () -> {
                go.await();
                return Database.open(db, 2, id);
              }));
    }
    go.countDown();
    for (Future<Database> f : opened) {
      f.get().close();
    }
    pool.shutdown();
    long versions =
        TestInfra.queryLong(db, "SELECT count(*) FROM flyway_schema_history WHERE success");
    long distinct =
        TestInfra.queryLong(db, "SELECT count(DISTINCT version) FROM flyway_schema_history");
    assertThat(versions).isEqualTo(distinct).isGreaterThanOrEqualTo(4);
    assertThat(TestInfra.queryLong(db, "SELECT count(*) FROM domain_event_entry")).isZero();
  }

  @Test
  void streamsStoredUnderPlainBusinessIdsAreRenamedAndStillLoad() throws Exception {
    try (WriteModelHarness harness = new WriteModelHarness("rename")) {
      WriteModel before = harness.start("before", false);
      List<OrderLine> lines = List.of(new OrderLine("S-1", 1, 100));
      before.commands().send(new PlaceOrder("p-1", "X", "c-1", "CNY", lines)).join();
      // An order whose plain ID is another one's new stream ID: the rename must not trip over it.
      before.commands().send(new PlaceOrder("p-2", "order:X", "c-1", "CNY", lines)).join();
      before.commands().send(new ReceiveStock("r-1", "S-1", 5, "delivery")).join();
      // Back to the layout before V40 (in two steps: plain "order:X" would meet renamed
      // "order:X"), and V40 and the migrations after it forgotten.
      String ids = "SELECT string_agg(aggregate_identifier, ',' ORDER BY global_index)";
      try (Connection c = connect(harness.endpoint());
          Statement st = c.createStatement()) {
        st.executeUpdate(
            "UPDATE domain_event_entry SET aggregate_identifier ="
                + " '#' || substr(aggregate_identifier, strpos(aggregate_identifier, ':') + 1)");
        st.executeUpdate(
            "UPDATE domain_event_entry SET aggregate_identifier = substr(aggregate_identifier, 2)");
        // A database from before V40 has none of the later migrations either.
        st.executeUpdate("DELETE FROM flyway_schema_history WHERE version::numeric >= 40");
        st.executeUpdate("DROP TABLE job_first_planned");
        // Nor the schedules' read table (V51), nor the delivery attempts of HTTP targets (V56).
        st.executeUpdate("DROP TABLE schedules");
        st.executeUpdate("DROP SEQUENCE schedules_change_seq");
        st.executeUpdate("DROP TABLE delivery_attempts");
        // Keys were not scoped to a principal (V50): one key row for everyone.
        st.executeUpdate("ALTER TABLE idempotency_keys DROP COLUMN principal");
        st.executeUpdate("ALTER TABLE idempotency_keys ADD PRIMARY KEY (idem_key)");
        st.executeUpdate(
            "INSERT INTO idempotency_keys (idem_key, operation, fingerprint, state, expires_at)"
                + " VALUES ('old-place', 'orders.place', 'f', 'COMPLETED', now() + interval '1 h'),"
                + " ('old-issue', 'refunds.issue', 'f', 'COMPLETED', now() + interval '1 h')");
      }
      assertThat(harness.queryString(ids + " FROM domain_event_entry")).isEqualTo("X,order:X,S-1");

      Database.open(harness.endpoint(), 2, "upgrade").close();
      // A key row from before keys were scoped goes to the lowest role allowed to send it.
      assertThat(
              harness.queryString(
                  "SELECT string_agg(idem_key || ' ' || principal, ',' ORDER BY idem_key)"
                      + " FROM idempotency_keys"))
          .isEqualTo("old-issue operator,old-place client");

      assertThat(harness.queryString(ids + " FROM domain_event_entry"))
          .isEqualTo("order:X,order:order:X,inventory:S-1");
      WriteModel after = harness.start("after", false);
      OrderSnapshot cancelled =
          after.commands().<OrderSnapshot>send(new CancelOrder("c-1", "X", "test")).join().result();
      assertThat(cancelled).isEqualTo(new OrderSnapshot("X", OrderStatus.CANCELLED, 100, 2));
      OrderSnapshot other =
          after
              .commands()
              .<OrderSnapshot>send(new CancelOrder("c-2", "order:X", "test"))
              .join()
              .result();
      assertThat(other).isEqualTo(new OrderSnapshot("order:X", OrderStatus.CANCELLED, 100, 2));
      InventorySnapshot stock =
          after
              .commands()
              .<InventorySnapshot>send(new ReceiveStock("r-2", "S-1", 5, "delivery"))
              .join()
              .result();
      assertThat(stock).isEqualTo(new InventorySnapshot("S-1", 10, 0, 10, 2, false, null));
    }
  }

  @Test
  void ledgerResultsNamedAtTheirOldPackageStillAnswerDuplicates() throws Exception {
    try (WriteModelHarness harness = new WriteModelHarness("results")) {
      WriteModel before = harness.start("before", false);
      PlaceOrder place =
          new PlaceOrder("p-1", "o-1", "c-1", "CNY", List.of(new OrderLine("S-1", 2, 100)));
      before.commands().send(place).join();
      // A ledger from before the domain module was split, then the migration that follows it (run
      // by hand: later migrations are applied already, so Flyway would refuse to re-run it).
      try (Connection c = connect(harness.endpoint());
          Statement st = c.createStatement()) {
        st.executeUpdate(
            "UPDATE command_ledger SET result_type = 'io.slotkeeper.domain.orders.OrderSnapshot'");
        st.execute(migration("V46__ledger_result_types_moved.sql"));
      }

      assertThat(harness.queryString("SELECT result_type FROM command_ledger"))
          .isEqualTo(OrderSnapshot.class.getName());
      WriteModel after = harness.start("after", false);
      CommandOutcome<OrderSnapshot> again = after.commands().<OrderSnapshot>send(place).join();
      assertThat(again.duplicate()).isTrue();
      assertThat(again.result()).isEqualTo(new OrderSnapshot("o-1", OrderStatus.NEW, 200, 1));
    }
  }

  private static Connection connect(PostgresEndpoint db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
  }

  private static String migration(String file) throws java.io.IOException {
    try (java.io.InputStream in = Database.class.getResourceAsStream("/db/migration/" + file)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }
}
