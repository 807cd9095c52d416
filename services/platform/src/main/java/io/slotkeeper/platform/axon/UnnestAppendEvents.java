package io.slotkeeper.platform.axon;

import io.slotkeeper.platform.db.UnnestColumns;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.axonframework.common.DateTimeUtils;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.statements.AppendEventsStatementBuilder;
import org.axonframework.eventsourcing.eventstore.jdbc.statements.TimestampWriter;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;

/**
 * Appends all events of a commit in one statement, {@code INSERT … SELECT FROM unnest(…)}, where
 * Axon's default is a JDBC batch that the driver rewrites into up to 7 multi-row inserts of
 * power-of-two sizes for a batch of 100 commands. Rows are inserted in the events' order ({@code
 * WITH ORDINALITY … ORDER BY}), so their global indexes increase in that order, as before.
 *
 * <p>The timestamp is written as Axon's engine writes it to a text column ({@link
 * DateTimeUtils#formatInstant}); the store's schema keeps {@code time_stamp} as {@code VARCHAR}.
 */
final class UnnestAppendEvents implements AppendEventsStatementBuilder {

  private static final String[] TYPES = {
    "varchar", "varchar", "int8", "varchar", "varchar", "varchar", "varchar", "bytea", "bytea"
  };

  @Override
  public PreparedStatement build(
      Connection connection,
      EventSchema schema,
      Class<?> dataType,
      List<? extends EventMessage<?>> events,
      Serializer serializer,
      TimestampWriter timestampWriter)
      throws SQLException {
    String sql =
        "INSERT INTO "
            + schema.domainEventTable()
            + " ("
            + schema.domainEventFields()
            + ") SELECT i, a, s, t, ts, pt, pr, p, m FROM unnest(?::varchar[], ?::varchar[],"
            + " ?::bigint[], ?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::bytea[],"
            + " ?::bytea[]) WITH ORDINALITY AS e(i, a, s, t, ts, pt, pr, p, m, n) ORDER BY n";
    List<Object[]> rows = new ArrayList<>(events.size());
    for (EventMessage<?> message : events) {
      DomainEventMessage<?> event = asDomainEvent(message);
      SerializedObject<?> payload = event.serializePayload(serializer, dataType);
      SerializedObject<?> metaData = event.serializeMetaData(serializer, dataType);
      rows.add(
          new Object[] {
            event.getIdentifier(),
            event.getAggregateIdentifier(),
            event.getSequenceNumber(),
            event.getType(),
            DateTimeUtils.formatInstant(event.getTimestamp()),
            payload.getType().getName(),
            payload.getType().getRevision(),
            payload.getData(),
            metaData.getData()
          });
    }
    PreparedStatement statement = connection.prepareStatement(sql);
    UnnestColumns.bind(connection, statement, rows, TYPES);
    // Axon executes the statement as a batch: this one statement is its only entry.
    statement.addBatch();
    return statement;
  }

  /** As Axon's own statement builder: an event published outside an aggregate gets no stream. */
  private static DomainEventMessage<?> asDomainEvent(EventMessage<?> event) {
    if (event instanceof DomainEventMessage) {
      return (DomainEventMessage<?>) event;
    }
    return new GenericDomainEventMessage<>(
        null, event.getIdentifier(), 0L, event, event::getTimestamp);
  }
}
