package io.slotkeeper.platform.axon;

import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.stream.Stream;
import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackedEventData;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.TokenSchema;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.eventsourcing.eventstore.jpa.SQLStateResolver;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;

/**
 * Axon's persistence on PostgreSQL, configured against the known traps: Jackson instead of XStream
 * (JDK 17), SQLSTATE 23505 recognised as a duplicate key (the default resolver misses
 * PostgreSQL's), and one transaction manager shared by the store, the token store and projections.
 */
public final class AxonStorage {

  /** Transactions of commands are short; a gap older than this is treated as a rollback. */
  static final Duration GAP_TIMEOUT = Duration.ofSeconds(60);

  /** Snake-case names of the Flyway-created tables (Axon's defaults are camel case). */
  public static final EventSchema EVENT_SCHEMA =
      EventSchema.builder()
          .eventTable("domain_event_entry")
          .snapshotTable("snapshot_event_entry")
          .globalIndexColumn("global_index")
          .timestampColumn("time_stamp")
          .eventIdentifierColumn("event_identifier")
          .aggregateIdentifierColumn("aggregate_identifier")
          .sequenceNumberColumn("sequence_number")
          .typeColumn("type")
          .payloadTypeColumn("payload_type")
          .payloadRevisionColumn("payload_revision")
          .payloadColumn("payload")
          .metaDataColumn("meta_data")
          .build();

  static final TokenSchema TOKEN_SCHEMA =
      TokenSchema.builder()
          .setTokenTable("token_entry")
          .setProcessorNameColumn("processor_name")
          .setSegmentColumn("segment")
          .setTokenColumn("token")
          .setTokenTypeColumn("token_type")
          .setTimestampColumn("timestamp")
          .setOwnerColumn("owner")
          .build();

  // One for every store in the JVM: readers of stored events that use it get the stored JSON as is.
  /** A segment's claim lapses when its owner has not renewed it for this long. */
  public static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(10);

  private static final Serializer SERIALIZER =
      JacksonSerializer.builder().objectMapper(Json.mapper()).build();

  private final Database database;
  private final EventPositions positions;

  public AxonStorage(Database database) {
    this(database, new EventPositions(database.transactions()));
  }

  /** Storage whose engine tells {@code positions} the position of every event it fetches. */
  public AxonStorage(Database database, EventPositions positions) {
    this.database = database;
    this.positions = positions;
  }

  /** The serializer of events, commands and tokens (the same instance for every store). */
  public static Serializer eventSerializer() {
    return SERIALIZER;
  }

  /**
   * The event store engine on the {@code domain_event_entry} table (schema from Flyway). slotkeeper
   * takes no snapshots (aggregates are short and cached), so loading an aggregate skips Axon's
   * snapshot query: one round trip less per load. Every event it fetches for a processor tells
   * {@link EventPositions} its position, which the processor then needs no query for.
   */
  public EventStorageEngine eventStorageEngine() {
    JdbcEventStorageEngine.Builder builder =
        JdbcEventStorageEngine.builder()
            .connectionProvider(database.transactions())
            .transactionManager(database.transactions())
            .eventSerializer(SERIALIZER)
            .snapshotSerializer(SERIALIZER)
            .persistenceExceptionResolver(new SQLStateResolver("23505"))
            .dataType(byte[].class)
            .schema(EVENT_SCHEMA)
            // All events of a commit (a batch of commands) in one statement.
            .appendEvents(new UnnestAppendEvents())
            .batchSize(500)
            .gapTimeout((int) GAP_TIMEOUT.toMillis());
    return new JdbcEventStorageEngine(builder) {
      @Override
      protected Stream<? extends DomainEventData<?>> readSnapshotData(String aggregateIdentifier) {
        return Stream.empty();
      }

      @Override
      protected TrackedEventData<?> getTrackedEventData(
          ResultSet resultSet, GapAwareTrackingToken previousToken) throws SQLException {
        TrackedEventData<?> event = super.getTrackedEventData(resultSet, previousToken);
        positions.fetched(
            event.getEventIdentifier(), resultSet.getLong(EVENT_SCHEMA.globalIndexColumn()));
        return event;
      }
    };
  }

  /** Token store of tracking processors; tokens commit with the projection's rows. */
  public TokenStore tokenStore(String instanceId) {
    return JdbcTokenStore.builder()
        .connectionProvider(database.transactions())
        .serializer(SERIALIZER)
        .contentType(byte[].class)
        .schema(TOKEN_SCHEMA)
        .nodeId(instanceId)
        .claimTimeout(CLAIM_TIMEOUT)
        .build();
  }
}
