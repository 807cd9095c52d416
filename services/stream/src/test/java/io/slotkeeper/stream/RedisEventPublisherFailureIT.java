package io.slotkeeper.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.inventory.InventoryEvent.StockReceived;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.eventhandling.SimpleEventHandlerInvoker;
import org.axonframework.eventhandling.pooled.PooledStreamingEventProcessor;
import org.axonframework.eventhandling.tokenstore.inmemory.InMemoryTokenStore;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.inmemory.InMemoryEventStorageEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 24: a pipeline that fails (a connection reset mid-batch, here a stream key of the wrong
 * type) fails the client's future with its {@code ErrorType}, a Throwable that is no Exception.
 * Thrown as it was at prepare-commit, it ended the pooled processor's work package without a
 * rollback or a log and the publisher never appended again. It must roll back, be reported to the
 * error handler and be retried until Redis accepts the appends.
 */
class RedisEventPublisherFailureIT {

  private final Vertx vertx = Vertx.vertx();
  private final ScheduledExecutorService coordinator = Executors.newSingleThreadScheduledExecutor();
  private final ScheduledExecutorService workers = Executors.newScheduledThreadPool(2);
  private PooledStreamingEventProcessor processor;

  @AfterEach
  void stop() throws Exception {
    if (processor != null) {
      try {
        // A work package ended by the bug never completes: do not wait for it forever.
        processor.shutdownAsync().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        // the executors are stopped below
      }
    }
    coordinator.shutdownNow();
    workers.shutdownNow();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aFailedPipelineRollsBackAndIsRetriedUntilTheStreamCatchesUp() throws Exception {
    Redis redis =
        Redis.createClient(
            vertx, new RedisOptions().setConnectionString(TestInfra.redis().connectionString()));
    String stream = "publisher-failure-" + UUID.randomUUID() + ":events";
    // XADD on a string key fails (WRONGTYPE): every batch fails until the key is deleted.
    redis.send(Request.cmd(Command.SET).arg(stream).arg("not a stream")).await();

    EventPositions positions =
        new EventPositions(
            () -> {
              throw new SQLException("positions are known");
            });
    List<Throwable> reported = new CopyOnWriteArrayList<>();
    EmbeddedEventStore store =
        EmbeddedEventStore.builder().storageEngine(new InMemoryEventStorageEngine()).build();
    processor =
        PooledStreamingEventProcessor.builder()
            .name(RedisEventPublisher.NAME)
            .eventHandlerInvoker(
                SimpleEventHandlerInvoker.builder()
                    .eventHandlers(new RedisEventPublisher(redis, stream, 1000, positions))
                    .listenerInvocationErrorHandler(PropagatingErrorHandler.instance())
                    .build())
            .errorHandler(
                context -> {
                  reported.add(context.error());
                  throw context.error() instanceof Exception e ? e : new Exception(context.error());
                })
            .messageSource(store)
            .tokenStore(new InMemoryTokenStore())
            .transactionManager(NoTransactionManager.INSTANCE)
            .coordinatorExecutor(coordinator)
            .workerExecutor(workers)
            .initialSegmentCount(1)
            .batchSize(5)
            .build();

    int events = 12;
    List<EventMessage<?>> messages = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      GenericDomainEventMessage<StockReceived> message =
          new GenericDomainEventMessage<>(
              "Inventory", "sku-" + i, 0, new StockReceived("sku-" + i, 1, "delivery", 1, 0));
      positions.fetched(message.getIdentifier(), i);
      messages.add(message);
    }
    store.publish(messages);
    processor.start();

    long deadline = System.currentTimeMillis() + 10_000;
    while (reported.isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(reported).as("the failed batch reached the error handler").isNotEmpty();
    assertThat(reported.get(0)).isInstanceOf(IllegalStateException.class);

    // Redis accepts appends again: the processor retries the batch and catches up.
    redis.send(Request.cmd(Command.DEL).arg(stream)).await();
    deadline = System.currentTimeMillis() + 30_000;
    long length = 0;
    while (length < events && System.currentTimeMillis() < deadline) {
      Response xlen = redis.send(Request.cmd(Command.XLEN).arg(stream)).await();
      length = xlen.toLong();
      Thread.sleep(100);
    }
    assertThat(length).as("stream length after the fault ended").isEqualTo(events);
    redis.send(Request.cmd(Command.DEL).arg(stream)).await(5, TimeUnit.SECONDS);
  }
}
