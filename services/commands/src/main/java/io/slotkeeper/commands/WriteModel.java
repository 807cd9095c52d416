package io.slotkeeper.commands;

import io.slotkeeper.commands.projection.ProjectionFailures;
import io.slotkeeper.commands.projection.ProjectionLag;
import io.slotkeeper.commands.projection.ProjectionSql;
import io.slotkeeper.events.Command;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.platform.axon.AxonStorage;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.axon.SignallingEventStore;
import io.slotkeeper.platform.config.SlotkeeperConfig;
import io.slotkeeper.platform.db.Database;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.axonframework.commandhandling.AsynchronousCommandBus;
import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.SimpleCommandBus;
import org.axonframework.config.AggregateConfigurer;
import org.axonframework.config.Configuration;
import org.axonframework.config.Configurer;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.eventhandling.pooled.PooledStreamingEventProcessor;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.correlation.MessageOriginProvider;
import org.axonframework.messaging.correlation.SimpleCorrelationDataProvider;
import org.axonframework.messaging.interceptors.CorrelationDataInterceptor;
import org.axonframework.messaging.unitofwork.RollbackConfigurationType;
import org.axonframework.modelling.command.AggregateAnnotationCommandHandler;
import org.axonframework.modelling.command.CommandTargetResolver;
import org.axonframework.modelling.command.NoArgumentConstructorCreationPolicyAggregateFactory;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.axonframework.modelling.command.inspection.AnnotatedAggregateMetaModelFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write side, assembled: Axon 4 without Spring and without Axon Server, on PostgreSQL. Commands
 * run on the command executor (never on a Vert.x event loop); projections run in pooled streaming
 * processors whose tokens live in PostgreSQL.
 */
public final class WriteModel implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WriteModel.class);

  /** Segments of each projection's processor (on a fresh token table). */
  static final int PROJECTION_SEGMENTS = 2;

  /** Events per processor transaction. */
  static final int BATCH_SIZE = 100;

  /** A command is routed to the stream its {@link Command#streamId()} names. */
  private static final CommandTargetResolver STREAM_TARGET =
      command ->
          new VersionedAggregateIdentifier(((Command) command.getPayload()).streamId(), null);

  /** Commands per batch of the command batcher (the API's and the timers' commands). */
  static final int MAX_COMMAND_BATCH = 100;

  private final Configuration axon;
  private final CommandService commands;
  private final CommandBatcher batcher;
  private final CommandLedger ledger;
  private final Clock clock;
  private final ProjectionLag projectionLag;
  private final ProjectionFailures failures;

  private WriteModel(
      Configuration axon,
      CommandLedger ledger,
      Database database,
      SlotkeeperMetrics metrics,
      int commandBatches,
      SameTransactionWrites writes,
      ProjectionFailures failures,
      Clock clock) {
    this.axon = axon;
    this.commands = new CommandService(axon.commandBus(), metrics, writes);
    this.batcher =
        new CommandBatcher(axon.commandBus(), commands, commandBatches, MAX_COMMAND_BATCH);
    this.ledger = ledger;
    this.clock = clock;
    this.failures = failures;
    this.projectionLag =
        new ProjectionLag(
            database.dataSource(), this::processors, metrics, failures, Clock.systemUTC());
  }

  /** Options of the write side. */
  public record Options(
      String instanceId,
      int commandThreads,
      boolean startProcessors,
      Clock clock,
      int aggregateCacheSize,
      int commandBatches) {

    /** Options with the system clock and the default aggregate cache and batches. */
    public Options(String instanceId, int commandThreads, boolean startProcessors) {
      this(instanceId, commandThreads, startProcessors, Clock.systemUTC());
    }

    /** Options with the default aggregate cache and batches. */
    public Options(String instanceId, int commandThreads, boolean startProcessors, Clock clock) {
      this(
          instanceId,
          commandThreads,
          startProcessors,
          clock,
          SlotkeeperConfig.DEFAULT_AGGREGATE_CACHE_SIZE,
          SlotkeeperConfig.defaultCommandBatches(commandThreads));
    }
  }

  /** Builds and starts the write side of the domains, its meters going nowhere. */
  public static WriteModel start(Database database, List<DomainModule> domains, Options options) {
    return start(
        database,
        domains,
        options,
        new EventPositions(database.transactions()),
        List.of(),
        SlotkeeperMetrics.none());
  }

  /**
   * Builds and starts the write side of the domains with extra tracking event handlers (each in the
   * processing group its {@code @ProcessingGroup} names, with a durable token like the
   * projections'), e.g. the Redis Streams publisher, and the event positions that they share with
   * the projections: the store's engine tells them the position of every event it fetches.
   */
  public static WriteModel start(
      Database database,
      List<DomainModule> domains,
      Options options,
      EventPositions positions,
      List<Object> eventHandlers,
      SlotkeeperMetrics metrics) {
    AxonStorage storage = new AxonStorage(database, positions);
    ProjectionSql projectionSql = new ProjectionSql(database.transactions(), positions);
    CommandLedger ledger = new CommandLedger(database.transactions());
    SameTransactionWrites writes = new SameTransactionWrites();
    List<Class<?>> aggregates = new ArrayList<>();
    List<CommandInterceptor> domainInterceptors = new ArrayList<>();
    for (DomainModule domain : domains) {
      aggregates.addAll(domain.aggregates());
      domainInterceptors.addAll(domain.interceptors().apply(database.transactions()));
    }
    // Wall time, not the options' clock: failures and claims are about the real infrastructure.
    ProjectionFailures failures = new ProjectionFailures(metrics, Clock.systemUTC());
    List<CorrelationDataProvider> correlation =
        List.of(
            new MessageOriginProvider(), new SimpleCorrelationDataProvider("commandId", "slot"));
    // Handler interceptors of the command bus and of the batches' entry bus, in this order.
    List<MessageHandlerInterceptor<? super CommandMessage<?>>> interceptors = new ArrayList<>();
    interceptors.add(new CorrelationDataInterceptor<>(correlation));
    interceptors.add(new StorableTextInterceptor());
    interceptors.add(new CommandDeduplicationInterceptor(ledger, writes));
    interceptors.addAll(domainInterceptors);

    Configurer configurer =
        DefaultConfigurer.defaultConfiguration()
            .configureTransactionManager(c -> database.transactions())
            .configureSerializer(c -> AxonStorage.eventSerializer())
            .configureEventSerializer(c -> AxonStorage.eventSerializer())
            .configureMessageSerializer(c -> AxonStorage.eventSerializer())
            .configureCorrelationDataProviders(c -> correlation)
            .configureEventStore(
                c ->
                    // Events of other instances are seen within the fetch delay (100 ms); this
                    // instance's wake the projections at once (see SignallingEventStore).
                    SignallingEventStore.build(
                        EmbeddedEventStore.builder().storageEngine(storage.eventStorageEngine()),
                        100))
            .configureCommandBus(c -> commandBus(database, interceptors, options.commandThreads()))
            // Handlers that need the time take a Clock parameter; Axon injects this one.
            .registerComponent(Clock.class, c -> options.clock());
    // One cache for all aggregate types (stream IDs are namespaced per type, see StreamIds).
    AggregateCache cache = new AggregateCache(options.aggregateCacheSize());
    for (Class<?> aggregate : aggregates) {
      configurer.configureAggregate(
          AggregateConfigurer.defaultConfiguration(aggregate)
              // Recently used aggregates stay in memory so a command on a known aggregate reads
              // nothing; a stale copy is caught by the event sequence (see AggregateCache).
              .configureCache(c -> cache)
              .configureCommandTargetResolver(c -> STREAM_TARGET));
    }
    configurer
        .eventProcessing()
        .registerTokenStore(c -> storage.tokenStore(options.instanceId()))
        // Projections: several segments (events sequenced per aggregate, Axon's default policy), so
        // batches of different aggregates are written in parallel transactions. Applies to a fresh
        // token table only; existing tokens keep their segments.
        .usingPooledStreamingEventProcessors(
            (c, builder) ->
                builder
                    // Rows and token commit together without waiting for the WAL flush (see
                    // Database#processorTransactions): a crash replays, never half-applies.
                    .transactionManager(database.processorTransactions())
                    .initialSegmentCount(PROJECTION_SEGMENTS)
                    .batchSize(BATCH_SIZE)
                    .enableCoordinatorClaimExtension())
        // A failing projection must roll back and retry, never skip the event: a handler's error
        // propagates to the processor's error handler, which records it (health, metrics) and
        // propagates again, so the segment stops at the event and Axon retries it with a back-off.
        .registerDefaultListenerInvocationErrorHandler(c -> PropagatingErrorHandler.instance())
        .registerDefaultErrorHandler(c -> failures);
    for (DomainModule domain : domains) {
      for (Object projection : domain.projections().apply(projectionSql)) {
        configurer.eventProcessing().registerEventHandler(c -> projection);
      }
    }
    for (Object handler : eventHandlers) {
      configurer.eventProcessing().registerEventHandler(c -> handler);
      // Extra handlers (the Redis publisher) keep one segment: their output stays in store order.
      ProcessingGroup group = handler.getClass().getAnnotation(ProcessingGroup.class);
      if (group != null) {
        configurer
            .eventProcessing()
            .registerPooledStreamingEventProcessorConfiguration(
                group.value(),
                (c, builder) ->
                    builder
                        .transactionManager(database.processorTransactions())
                        .initialSegmentCount(1)
                        .batchSize(BATCH_SIZE)
                        .enableCoordinatorClaimExtension());
      }
    }
    Configuration axon = configurer.buildConfiguration();
    axon.commandBus()
        .subscribe(
            CommandBatchHandler.commandName(),
            new CommandBatchHandler(
                entryBus(axon, aggregates, interceptors), domainInterceptors, writes));
    if (options.startProcessors()) {
      axon.start();
    } else {
      // Commands only (tests that play a crash before projection): start all but processors.
      axon.start();
      axon.eventProcessingConfiguration()
          .eventProcessors()
          .values()
          .forEach(EventProcessor::shutDown);
    }
    log.info(
        "write model started: aggregates {}, processors {}",
        aggregates.stream().map(Class::getSimpleName).toList(),
        axon.eventProcessingConfiguration().eventProcessors().keySet());
    return new WriteModel(
        axon,
        ledger,
        database,
        metrics,
        options.commandBatches(),
        writes,
        failures,
        options.clock());
  }

  /**
   * The bus a {@link CommandBatchHandler} applies its entries on: synchronous, in the batch's
   * transaction, with every aggregate's handlers and the same interceptors as the main bus.
   */
  private static CommandBus entryBus(
      Configuration axon,
      List<Class<?>> aggregates,
      List<MessageHandlerInterceptor<? super CommandMessage<?>>> interceptors) {
    SimpleCommandBus bus =
        SimpleCommandBus.builder()
            .rollbackConfiguration(RollbackConfigurationType.ANY_THROWABLE)
            .build();
    interceptors.forEach(bus::registerHandlerInterceptor);
    for (Class<?> aggregate : aggregates) {
      subscribe(bus, axon, aggregate);
    }
    return bus;
  }

  private static <A> void subscribe(CommandBus bus, Configuration axon, Class<A> aggregate) {
    AggregateAnnotationCommandHandler.<A>builder()
        .repository(axon.repository(aggregate))
        .aggregateModel(
            AnnotatedAggregateMetaModelFactory.inspectAggregate(
                aggregate, axon.parameterResolverFactory(), axon.handlerDefinition(aggregate)))
        .commandTargetResolver(STREAM_TARGET)
        .creationPolicyAggregateFactory(
            new NoArgumentConstructorCreationPolicyAggregateFactory<>(aggregate))
        .build()
        .subscribe(bus);
  }

  private static CommandBus commandBus(
      Database database,
      List<MessageHandlerInterceptor<? super CommandMessage<?>>> interceptors,
      int threads) {
    AtomicInteger n = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "slotkeeper-command-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    AsynchronousCommandBus bus =
        AsynchronousCommandBus.builder()
            .executor(executor)
            .transactionManager(database.transactions())
            .rollbackConfiguration(RollbackConfigurationType.ANY_THROWABLE)
            .build();
    interceptors.forEach(bus::registerHandlerInterceptor);
    return bus;
  }

  public CommandService commands() {
    return commands;
  }

  /** Sends many aggregates' commands in shared transactions (the timers' slot commands). */
  public CommandBatcher batcher() {
    return batcher;
  }

  /** The record of applied command IDs (for flows that ask whether a step was applied). */
  /** The clock the write side stamps its events with. */
  public Clock clock() {
    return clock;
  }

  public CommandLedger ledger() {
    return ledger;
  }

  public EventStore eventStore() {
    return axon.eventStore();
  }

  /** Tracking processors by name (for lag metrics and operator actions). */
  public Map<String, EventProcessor> processors() {
    return axon.eventProcessingConfiguration().eventProcessors();
  }

  /**
   * Rebuilds a projection from the store: stop, reset its token (its reset handler clears its rows
   * in the same transaction as the first batch is not guaranteed, so it clears them first), then
   * replay from the first event.
   */
  public void rebuild(String processorName) {
    EventProcessor processor = processors().get(processorName);
    if (!(processor instanceof PooledStreamingEventProcessor)) {
      throw new IllegalArgumentException("no projection named " + processorName);
    }
    PooledStreamingEventProcessor pooled = (PooledStreamingEventProcessor) processor;
    log.info("rebuilding projection {}", processorName);
    pooled.shutDown();
    pooled.resetTokens();
    failures.clear(processorName);
    pooled.start();
  }

  /** The projections' lag behind the event store. */
  public ProjectionLag projectionLag() {
    return projectionLag;
  }

  @Override
  public void close() {
    projectionLag.close();
    axon.shutdown();
  }
}
