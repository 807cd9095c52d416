package io.slotkeeper.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slotkeeper.events.DeterministicIds;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HTTP clients placing orders, receiving stock and requesting refunds, each request under its own
 * Idempotency-Key, retried with the same key (on another instance) after an error or a timeout
 * until an answer that is not "try again" (2xx, or a 4xx other than "request in flight").
 */
final class Load {

  /** An operation the service acknowledged (2xx): its command ID must be in the store once. */
  record Ack(
      String op, String key, String commandId, String aggregateId, int status, int attempts) {}

  /** A final non-2xx answer. */
  record Refusal(String op, String key, int status, String body) {}

  static final String PLACE = "orders.place";
  static final String RECEIVE = "inventory.receive";
  static final String REFUND = "refunds.request";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] SKUS = {"CHAOS-A", "CHAOS-B", "CHAOS-C"};

  final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<Refusal> refusals = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<String> gaveUp = new ConcurrentLinkedQueue<>();
  final AtomicLong requests = new AtomicLong();
  final AtomicLong retries = new AtomicLong();
  final AtomicLong replayed = new AtomicLong();
  private final Map<String, Long> ordersPlacedAt = new ConcurrentHashMap<>();

  private final List<Instance> instances;
  private final String runId;
  private final String token;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private volatile boolean stopping;
  private final List<Thread> threads = new ArrayList<>();

  Load(List<Instance> instances, String runId, String token) {
    this.instances = instances;
    this.runId = runId;
    this.token = token;
  }

  void start(int clients) {
    for (int i = 0; i < clients; i++) {
      int client = i;
      Thread t = new Thread(() -> client(client), "chaos-client-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Stops issuing new operations; an operation in progress is retried to its end (bounded). */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join(150_000);
    }
  }

  private void client(int client) {
    long n = 0;
    while (!stopping) {
      n++;
      String key = runId + "-" + client + "-" + n;
      int pick = ThreadLocalRandom.current().nextInt(10);
      if (pick < 5) {
        placeOrder(key, client);
      } else if (pick < 8) {
        String sku = SKUS[ThreadLocalRandom.current().nextInt(SKUS.length)];
        send(
            RECEIVE,
            key,
            sku,
            "/v1/inventory/" + sku + "/receipts",
            "{\"qty\":" + (2 + ThreadLocalRandom.current().nextInt(4)) + "}");
      } else {
        requestRefund(key);
      }
      Chaos.sleep(100 + ThreadLocalRandom.current().nextInt(200));
    }
  }

  private void placeOrder(String key, int client) {
    String sku = SKUS[ThreadLocalRandom.current().nextInt(SKUS.length)];
    String body =
        "{\"customerId\":\"chaos-"
            + client
            + "\",\"currency\":\"CNY\",\"items\":[{\"sku\":\""
            + sku
            + "\",\"qty\":1,\"unitPriceCents\":1000}]}";
    String orderId = DeterministicIds.entityIdForKey("order", key);
    if (send(PLACE, key, orderId, "/v1/orders", body)) {
      ordersPlacedAt.put(orderId, System.currentTimeMillis());
    }
  }

  /** A refund of an order placed at least 20 s ago (fulfilment runs every 10 s). */
  private void requestRefund(String key) {
    long cutoff = System.currentTimeMillis() - 20_000;
    List<String> old = new ArrayList<>();
    ordersPlacedAt.forEach(
        (id, at) -> {
          if (at < cutoff) {
            old.add(id);
          }
        });
    if (old.isEmpty()) {
      return;
    }
    String orderId = old.get(ThreadLocalRandom.current().nextInt(old.size()));
    ordersPlacedAt.remove(orderId); // one refund per order: a second could exceed the amount
    send(
        REFUND,
        key,
        DeterministicIds.refundId(orderId, key),
        "/v1/orders/" + orderId + "/refunds",
        "{\"amountCents\":400,\"reason\":\"chaos\"}");
  }

  /** True when acknowledged (2xx). */
  private boolean send(String op, String key, String aggregateId, String path, String body) {
    long giveUpAt = Long.MAX_VALUE;
    int attempt = 0;
    int instance = ThreadLocalRandom.current().nextInt(instances.size());
    while (true) {
      attempt++;
      if (stopping && giveUpAt == Long.MAX_VALUE) {
        giveUpAt = System.currentTimeMillis() + 120_000;
      }
      if (System.currentTimeMillis() > giveUpAt) {
        gaveUp.add(op + " " + key);
        return false;
      }
      Instance target = instances.get(instance % instances.size());
      requests.incrementAndGet();
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(target.base() + path))
                    .timeout(Duration.ofSeconds(8))
                    .header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        int status = r.statusCode();
        if (status / 100 == 2) {
          if (r.headers().firstValue("Idempotent-Replayed").isPresent()) {
            replayed.incrementAndGet();
          }
          String id = aggregateId;
          if (PLACE.equals(op)) {
            JsonNode answer = JSON.readTree(r.body());
            id = answer.path("orderId").asText(aggregateId);
          }
          acks.add(
              new Ack(op, key, DeterministicIds.forIdempotencyKey(op, key), id, status, attempt));
          return true;
        }
        boolean inFlight = status == 409 && r.body().contains("in flight");
        if (status / 100 == 4 && !inFlight && status != 408 && status != 429) {
          refusals.add(new Refusal(op, key, status, abbreviate(r.body())));
          return false;
        }
      } catch (IOException e) {
        // connection refused, reset, timed out: the same key again, elsewhere
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        gaveUp.add(op + " " + key + " (interrupted)");
        return false;
      }
      retries.incrementAndGet();
      instance++;
      Chaos.sleep(Math.min(2000, 100L * attempt));
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }
}
