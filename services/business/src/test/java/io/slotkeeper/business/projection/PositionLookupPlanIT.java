package io.slotkeeper.business.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.business.WriteModelHarness;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.db.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A projection batch looks up its events' positions by identifier. On a young store, PostgreSQL
 * used to settle that prepared statement on a generic plan made for the then tiny table — a
 * sequential scan — and kept it while the store grew: 37 ms a batch at 50,000 events, and the read
 * tables fell seconds behind under load. The pools now plan each execution for its parameters.
 */
class PositionLookupPlanIT {

  private WriteModelHarness harness;
  private Database db;

  @BeforeEach
  void setUp() {
    harness = new WriteModelHarness("plans");
    db = harness.database(4, "plans-test");
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  @Test
  void aLookupFirstRunOnATinyStoreStillUsesTheIndexOnceTheStoreHasGrown() throws Exception {
    EventPositions positions = new EventPositions(db.transactions());
    List<EventMessage<?>> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(GenericEventMessage.asEventMessage("event " + i));
    }
    // One processor transaction: every lookup below runs on its one connection.
    Transaction tx = db.processorTransactions().startTransaction();
    try (Connection c = db.transactions().getConnection()) {
      insert(c, batch);
      // More than the five executions after which PostgreSQL may switch to a generic plan.
      for (int i = 0; i < 12; i++) {
        assertThat(lookUp(positions, batch)).isPositive();
      }
      grow(c, 20_000);
      long before = sequentialScans(c);
      assertThat(lookUp(positions, batch)).isPositive();
      assertThat(sequentialScans(c) - before).isZero();
    } finally {
      tx.rollback();
    }
  }

  /** The position of the batch's first event, looked up as a projection batch does. */
  private static long lookUp(EventPositions positions, List<EventMessage<?>> batch) {
    BatchingUnitOfWork<EventMessage<?>> uow = new BatchingUnitOfWork<>(batch);
    uow.start();
    try {
      return positions.of(batch.get(0).getIdentifier());
    } finally {
      uow.rollback();
    }
  }

  private static void insert(Connection c, List<EventMessage<?>> batch) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO domain_event_entry (event_identifier, payload, payload_type, time_stamp,"
                + " aggregate_identifier, sequence_number, type)"
                + " VALUES (?, '\\x00', 'x', now()::text, ?, 0, 'Test')")) {
      for (EventMessage<?> m : batch) {
        ps.setString(1, m.getIdentifier());
        ps.setString(2, "test:" + m.getIdentifier());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static void grow(Connection c, int events) throws Exception {
    try (Statement s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO domain_event_entry (event_identifier, payload, payload_type, time_stamp,"
              + " aggregate_identifier, sequence_number, type) SELECT 'grown-' || g, '\\x00', 'x',"
              + " now()::text, 'test:grown-' || g, 0, 'Test' FROM generate_series(1, "
              + events
              + ") g");
    }
  }

  /** Sequential scans of the store in this transaction (PostgreSQL's own counter). */
  private static long sequentialScans(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT coalesce(seq_scan, 0) FROM pg_stat_xact_user_tables"
                    + " WHERE relname = 'domain_event_entry'")) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }
}
