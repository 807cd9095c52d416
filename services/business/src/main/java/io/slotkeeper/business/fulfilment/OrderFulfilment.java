package io.slotkeeper.business.fulfilment;

import io.slotkeeper.business.inventory.InventorySnapshot;
import io.slotkeeper.commands.CommandLedger;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.orders.OrderStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fulfils an order: start processing, reserve every SKU, then either commit every reservation and
 * complete, or (a SKU is short) release every reservation and fail. Crash-safe by construction:
 * every step is a command with an ID derived from the order and the step ({@link FulfilmentSteps}),
 * so running the flow again after a crash at any point re-sends finished steps as duplicates and
 * continues where it stopped.
 *
 * <p>Once a release was applied the flow has decided to fail; a re-run does not reserve again
 * (stock may have arrived meanwhile) but finishes the release. The short SKU is then the first one
 * whose reservation never applied, because reservations are made in order and stop at the first
 * shortage.
 */
public final class OrderFulfilment implements AutoCloseable {

  /** Orders PROCESSING without change for longer than this are presumed abandoned by a crash. */
  public static final Duration DEFAULT_STUCK_AFTER = Duration.ofMinutes(5);

  private static final Logger log = LoggerFactory.getLogger(OrderFulfilment.class);
  private static final String STUCK =
      "SELECT order_id FROM orders WHERE status = 'PROCESSING' AND updated_at < ?"
          + " ORDER BY updated_at LIMIT 500";

  private final CommandService commands;
  private final EventStore eventStore;
  private final CommandLedger ledger;
  private final DataSource readSide;
  private final Clock clock;
  private final ExecutorService executor =
      Executors.newFixedThreadPool(
          2,
          r -> {
            Thread t = new Thread(r, "slotkeeper-fulfilment");
            t.setDaemon(true);
            return t;
          });

  /**
   * The flow on a write model; stuck orders are found in the read side's {@code orders}, against
   * the write side's clock (the one its events are stamped with).
   */
  public OrderFulfilment(WriteModel writeModel, DataSource readSide) {
    this.commands = writeModel.commands();
    this.eventStore = writeModel.eventStore();
    this.ledger = writeModel.ledger();
    this.clock = writeModel.clock();
    this.readSide = readSide;
  }

  /** Runs (or resumes) the flow; completes with the order's final state. */
  public CompletableFuture<FulfilmentResult> process(String orderId) {
    return CompletableFuture.supplyAsync(() -> run(orderId), executor);
  }

  /** Re-runs the flow for orders PROCESSING unchanged for {@link #DEFAULT_STUCK_AFTER}. */
  public CompletableFuture<List<FulfilmentResult>> recoverStuck() {
    return recoverStuck(DEFAULT_STUCK_AFTER);
  }

  /**
   * Re-runs the flow for orders PROCESSING unchanged for longer than {@code deadline}, one after
   * the other. An order whose run fails again is reported as still PROCESSING with the error.
   */
  public CompletableFuture<List<FulfilmentResult>> recoverStuck(Duration deadline) {
    return CompletableFuture.supplyAsync(
        () -> {
          List<FulfilmentResult> results = new ArrayList<>();
          for (String orderId : stuckOrders(clock.instant().minus(deadline))) {
            try {
              results.add(run(orderId));
            } catch (RuntimeException e) {
              log.warn("recovery of order {} failed", orderId, e);
              results.add(new FulfilmentResult(orderId, OrderStatus.PROCESSING, e.toString()));
            }
          }
          return results;
        },
        executor);
  }

  private FulfilmentResult run(String orderId) {
    OrderHistory order = OrderHistory.load(eventStore, orderId);
    if (order.status() == OrderStatus.NEW) {
      try {
        send(FulfilmentSteps.start(orderId));
      } catch (IllegalTransitionException e) {
        // Cancelled (or started by another run) meanwhile: the store knows where it is.
        return OrderHistory.load(eventStore, orderId).result();
      }
    } else if (order.status() != OrderStatus.PROCESSING) {
      return order.result();
    }
    Map<String, Integer> qty = FulfilmentSteps.quantities(order.lines());
    String shortSku = reserveAll(orderId, qty);
    if (shortSku == null) {
      for (String sku : qty.keySet()) {
        commit(orderId, sku);
      }
      send(FulfilmentSteps.complete(orderId));
    } else {
      for (String sku : qty.keySet()) {
        send(FulfilmentSteps.release(orderId, sku));
      }
      send(FulfilmentSteps.fail(orderId, shortSku));
    }
    return OrderHistory.load(eventStore, orderId).result();
  }

  /** Reserves every SKU in order; returns the first one short of stock, or null if none is. */
  private String reserveAll(String orderId, Map<String, Integer> qty) {
    boolean releasing =
        qty.keySet().stream()
            .anyMatch(sku -> ledger.applied(FulfilmentSteps.release(orderId, sku).commandId()));
    for (Map.Entry<String, Integer> line : qty.entrySet()) {
      String sku = line.getKey();
      if (releasing) {
        if (!ledger.applied(FulfilmentSteps.reserve(orderId, sku, line.getValue()).commandId())) {
          return sku;
        }
        continue;
      }
      try {
        send(FulfilmentSteps.reserve(orderId, sku, line.getValue()));
      } catch (RuleViolationException shortage) {
        log.info("order {} cannot be fulfilled: {}", orderId, shortage.getMessage());
        return sku;
      }
    }
    if (releasing) {
      throw new IllegalStateException("order " + orderId + " was released but fully reserved");
    }
    return null;
  }

  private void commit(String orderId, String sku) {
    CommandOutcome<InventorySnapshot> outcome = send(FulfilmentSteps.commit(orderId, sku));
    if (outcome.result().noop() && !outcome.duplicate()) {
      // Someone released our reservation: shipping now would be a lie. Leave it PROCESSING for an
      // operator (recoverStuck will report it again).
      throw new IllegalStateException(
          "cannot ship order " + orderId + ": " + outcome.result().note());
    }
  }

  private <R> CommandOutcome<R> send(Command command) {
    try {
      return commands.<R>send(command).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  private List<String> stuckOrders(Instant before) {
    List<String> ids = new ArrayList<>();
    try (Connection c = readSide.getConnection();
        PreparedStatement ps = c.prepareStatement(STUCK)) {
      ps.setTimestamp(1, Timestamp.from(before));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot look for stuck orders", e);
    }
    return ids;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
