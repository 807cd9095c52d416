package io.slotkeeper.business.jobs;

import static org.awaitility.Awaitility.await;

import io.slotkeeper.business.Business;
import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.slots.SlotLedger;
import io.slotkeeper.slots.SlotRun;
import io.slotkeeper.testing.TestInfra;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** A fresh database with the schema and one running write model; closes what it opened. */
final class JobsHarness implements AutoCloseable {

  private final PostgresEndpoint endpoint;
  private final Database database;
  private final WriteModel model;
  private final OrderFulfilment fulfilment;

  JobsHarness(String purpose) {
    endpoint = TestInfra.freshDatabase(purpose);
    database = Database.open(endpoint, 8, purpose);
    model =
        WriteModel.start(
            database,
            List.of(Business.module(), SlotLedger.module()),
            new WriteModel.Options(purpose, 4, true));
    fulfilment = new OrderFulfilment(model, database.dataSource());
  }

  WriteModel model() {
    return model;
  }

  /** The order fulfilment flow on the write model. */
  OrderFulfilment fulfilment() {
    return fulfilment;
  }

  DataSource dataSource() {
    return database.dataSource();
  }

  <R> CommandOutcome<R> send(Command command) {
    return model.commands().<R>send(command).join();
  }

  /** The attempt of a job's slot at an instant, as the timer would hand it to the handler. */
  static SlotRun slot(String job, Instant nominal, Map<String, String> params) {
    return new SlotRun(job, nominal, DeterministicIds.forSlot(job, nominal), 1, params);
  }

  long queryLong(String sql) {
    return TestInfra.queryLong(endpoint, sql);
  }

  String queryString(String sql) {
    return TestInfra.queryString(endpoint, sql);
  }

  /** Events of one type (simple class name) in the store. */
  long events(String type) {
    return queryLong(
        "SELECT count(*) FROM domain_event_entry WHERE payload_type LIKE '%" + type + "'");
  }

  long allEvents() {
    return queryLong("SELECT count(*) FROM domain_event_entry");
  }

  void execute(String sql) {
    try (Connection c = database.dataSource().getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Waits (projections lag) until the query returns the expected number (no row yet: wait). */
  void awaitLong(long expected, String sql) {
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreException(NumberFormatException.class)
        .until(() -> queryLong(sql) == expected);
  }

  @Override
  public void close() {
    fulfilment.close();
    model.close();
    database.close();
  }
}
