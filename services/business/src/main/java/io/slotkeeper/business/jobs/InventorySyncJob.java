package io.slotkeeper.business.jobs;

import io.slotkeeper.business.inventory.InventorySnapshot;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.events.inventory.InventoryCommand.CountStock;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code inventory-sync}: applies the upstream stock feed. The feed is the table {@code
 * inventory_feed} (migration V11): an upstream system upserts its latest count per SKU there
 * ({@code sku, on_hand, as_of}); this job turns every row into a {@link CountStock}.
 *
 * <p>The command ID is the slot's ID for "count:SKU:asOf": a re-run of the slot re-sends the same
 * commands (duplicates), and a later slot re-reading an unchanged row sends a count that is not
 * newer than the applied one, which the inventory aggregate ignores. So a count is applied once
 * however often the feed is read.
 *
 * <p>Counts: {@code applied}, {@code ignored} (stale counts and duplicates of this slot's earlier
 * attempt), {@code failed} (refused, e.g. a count below the stock reserved for orders, or an
 * on-hand beyond the command's int range; logged, not thrown).
 */
public final class InventorySyncJob implements JobHandler {

  public static final String NAME = "inventory-sync";

  private static final Logger log = LoggerFactory.getLogger(InventorySyncJob.class);
  private static final String FEED = "SELECT sku, on_hand, as_of FROM inventory_feed ORDER BY sku";

  /** Counts sent and not yet answered, at most (each SKU is its own aggregate). */
  static final int IN_FLIGHT = 16;

  private record FeedRow(String sku, long onHand, Instant asOf) {}

  private final CommandService commands;
  private final JobSql sql;

  public InventorySyncJob(CommandService commands, DataSource feed) {
    this.commands = commands;
    this.sql = new JobSql(feed);
  }

  @Override
  public Map<String, Long> run(SlotRun run) {
    Tally tally = new Tally("applied", "ignored", "failed");
    // Counts of different SKUs go at once, up to IN_FLIGHT of them: one by one, a feed of
    // thousands of SKUs paid a command round trip and a commit each, in sequence.
    Deque<CompletableFuture<Optional<CommandOutcome<InventorySnapshot>>>> inFlight =
        new ArrayDeque<>();
    RuntimeException failure = null;
    for (FeedRow row :
        sql.query(
            FEED,
            rs ->
                new FeedRow(
                    rs.getString(1),
                    rs.getLong(2),
                    rs.getObject(3, OffsetDateTime.class).toInstant()))) {
      if (row.onHand() > Integer.MAX_VALUE) {
        log.warn("slot {}: count of {} out of range: {}", run.slotId(), row.sku(), row.onHand());
        tally.add("failed");
        continue;
      }
      CountStock count =
          new CountStock(
              run.commandId("count:" + row.sku() + ":" + row.asOf()),
              row.sku(),
              (int) row.onHand(),
              row.asOf());
      if (inFlight.size() == IN_FLIGHT) {
        failure = settle(tally, inFlight.poll(), failure);
        if (failure != null) {
          break; // the attempt fails: send no more
        }
      }
      inFlight.add(Commands.sendUnlessRefusedAsync(commands, count, run));
    }
    // Wait for every count sent, so none is still running when the attempt ends. A failure fails
    // the attempt, which is retried under the same command IDs (applied counts come back as
    // duplicates).
    while (!inFlight.isEmpty()) {
      failure = settle(tally, inFlight.poll(), failure);
    }
    if (failure != null) {
      throw failure;
    }
    return tally.toMap();
  }

  /** Waits for one count and tallies it; returns the attempt's first failure, if any. */
  private static RuntimeException settle(
      Tally tally,
      CompletableFuture<Optional<CommandOutcome<InventorySnapshot>>> sent,
      RuntimeException earlier) {
    try {
      tally.add(
          Commands.join(sent)
              .map(o -> o.duplicate() || o.result().noop() ? "ignored" : "applied")
              .orElse("failed"));
      return earlier;
    } catch (RuntimeException e) {
      return earlier != null ? earlier : e;
    }
  }
}
