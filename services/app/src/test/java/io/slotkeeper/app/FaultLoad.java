package io.slotkeeper.app;

import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.slotkeeper.operations.orders.OrderOperations;
import io.slotkeeper.operations.refunds.RefundOperations;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.Deque;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The command path during a seed's faults: clients receiving stock, placing orders and requesting
 * refunds, each request under its own Idempotency-Key and retried with it, like a real client,
 * after a connection error, a 5xx, a timeout or "in flight", until a final answer (2xx or another
 * 4xx) or 60 s after the load stopped.
 */
final class FaultLoad {

  /** What the service acknowledged (2xx): {@code id} is the order, SKU or refund. */
  record Ack(String op, String key, String commandId, String id, int qty) {}

  static final String[] SKUS = {"FP-A", "FP-B"};

  final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
  final Queue<String> problems = new ConcurrentLinkedQueue<>();
  private final AppHarness h;
  private final String prefix;
  private final long seed;
  // Acknowledged orders not refunded yet (shared by the seeds of one run).
  private final Deque<String> orders;
  private final ExecutorService clients =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "fault-client");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean stopping;

  FaultLoad(AppHarness h, String prefix, long seed, Deque<String> orders) {
    this.h = h;
    this.prefix = prefix;
    this.seed = seed;
    this.orders = orders;
  }

  void start(int n) {
    IntStream.range(0, n).forEach(c -> clients.execute(() -> run(c)));
  }

  /** Stops new operations and waits for those in progress to get their final answer. */
  void stop() throws InterruptedException {
    stopping = true;
    clients.shutdown();
    clients.awaitTermination(90, TimeUnit.SECONDS);
  }

  private void run(int client) {
    Random r = new Random(seed * 7919 + client);
    for (int n = 1; !stopping; n++) {
      String key = prefix + "-" + seed + "-" + client + "-" + n;
      String sku = SKUS[r.nextInt(SKUS.length)];
      int pick = r.nextInt(10);
      if (pick < 4) {
        int qty = 3 + r.nextInt(5);
        send(
            InventoryOperations.RECEIVE,
            key,
            sku,
            qty,
            "/v1/inventory/" + sku + "/receipts",
            "{\"qty\":" + qty + ",\"reason\":\"faults\"}");
      } else if (pick < 8 || orders.size() < 3) {
        String order = DeterministicIds.entityIdForKey("order", key);
        String body =
            "{\"customerId\":\"fp-"
                + client
                + "\",\"currency\":\"CNY\",\"items\":[{\"sku\":\""
                + sku
                + "\",\"qty\":1,\"unitPriceCents\":1000}]}";
        if (send(OrderOperations.PLACE, key, order, 1, "/v1/orders", body)) {
          orders.addLast(order);
        }
      } else {
        String order = orders.pollFirst();
        if (order != null) {
          send(
              RefundOperations.REQUEST,
              key,
              DeterministicIds.refundId(order, key),
              100,
              "/v1/orders/" + order + "/refunds",
              "{\"amountCents\":100,\"reason\":\"faults\"}");
        }
      }
      sleep(20 + r.nextInt(60));
    }
  }

  /** True when acknowledged. A refund may be refused (its order is not COMPLETED yet): a rule. */
  private boolean send(String op, String key, String id, int qty, String path, String body) {
    long giveUpAt = Long.MAX_VALUE;
    for (int attempt = 1; ; attempt++) {
      if (stopping && giveUpAt == Long.MAX_VALUE) {
        giveUpAt = System.currentTimeMillis() + 60_000;
      }
      if (System.currentTimeMillis() > giveUpAt) {
        problems.add(op + " key " + key + ": no final answer 60 s after the faults");
        return false;
      }
      try {
        HttpResponse<String> r = h.post(path, AppHarness.CLIENT, key, body);
        int status = r.statusCode();
        if (status / 100 == 2) {
          String answered =
              OrderOperations.PLACE.equals(op)
                  ? new JsonObject(r.body()).getString("orderId", id)
                  : id;
          acks.add(new Ack(op, key, DeterministicIds.forIdempotencyKey(op, key), answered, qty));
          return true;
        }
        boolean retry =
            status / 100 == 5
                || status == 408
                || status == 429
                || (status == 409 && r.body().contains("in flight"));
        if (!retry) {
          if (!RefundOperations.REQUEST.equals(op)) {
            problems.add(op + " key " + key + ": refused " + status + " " + r.body());
          }
          return false;
        }
      } catch (IllegalStateException e) {
        if (Thread.currentThread().isInterrupted()) {
          return false;
        }
        // reset, refused or timed out (AppHarness wraps the IOException): the same key again
      }
      sleep(Math.min(1_000, 50L * attempt));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
