package io.slotkeeper.business;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.orders.OrderEvent.OrderCancelled;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The event append and our own rows share one transaction: both commit or neither does. */
class TransactionBoundaryIT {

  private WriteModelHarness harness;
  private Database db;
  private EventStorageEngine engine;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("tx");
    db = harness.database(4, "tx-test");
    engine = new AxonStorage(db).eventStorageEngine();
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  private void appendAndRecord(String aggregateId) throws Exception {
    engine.appendEvents(
        new GenericDomainEventMessage<>(
            "Order", aggregateId, 0, new OrderCancelled(aggregateId, "x")));
    try (Connection c = db.transactions().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO command_ledger (command_id, command_type, aggregate_id, payload_sha256)"
                    + " VALUES (?, 'Test', ?, repeat('0', 64))")) {
      ps.setString(1, "cmd-" + aggregateId);
      ps.setString(2, aggregateId);
      ps.executeUpdate();
    }
  }

  @Test
  void aFailureAfterTheAppendRollsTheAppendBack() throws Exception {
    Transaction tx = db.transactions().startTransaction();
    appendAndRecord("rolled-back");
    tx.rollback();
    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isZero();
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger")).isZero();
  }

  @Test
  void aCommitKeepsBoth() throws Exception {
    Transaction tx = db.transactions().startTransaction();
    appendAndRecord("committed");
    tx.commit();
    assertThat(harness.queryLong("SELECT count(*) FROM domain_event_entry")).isEqualTo(1);
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger")).isEqualTo(1);
  }

  @Test
  void commandsCommitSynchronouslyProcessorsDoNotAndBothShareTheThreadsConnection()
      throws Exception {
    assertThat(setting(db.transactions())).isEqualTo("on");
    Transaction tx = db.processorTransactions().startTransaction();
    // Inside a processor's transaction, the command-side provider (used by the token store and
    // projections) hands out that same connection.
    assertThat(setting(db.transactions())).isEqualTo("off");
    appendAndRecord("by-a-processor");
    tx.commit();
    assertThat(harness.queryLong("SELECT count(*) FROM command_ledger")).isEqualTo(1);
  }

  private static String setting(ConnectionProvider provider) throws Exception {
    try (Connection c = provider.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
