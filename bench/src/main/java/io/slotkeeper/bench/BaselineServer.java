package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.ReadPools;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.UUID;

/**
 * The baseline: what a service without slotkeeper's guarantees does, the "check, then insert"
 * idempotency of the document, through the same HTTP stack (one Vert.x verticle, the Vert.x
 * PostgreSQL client). {@code POST /v1/orders} with an {@code Idempotency-Key}: SELECT the key; if
 * present, replay the saved answer; otherwise INSERT the order with its answer (no event store, no
 * command ledger, no projection). Two first requests with one key race: the loser gets 409 from the
 * primary key.
 *
 * <p>Run as a child process by the benchmark: {@code BASELINE_PG_URL}, {@code BASELINE_PORT},
 * {@code BASELINE_TOKEN}, {@code BASELINE_POOL_SIZE}.
 */
public final class BaselineServer extends AbstractVerticle {

  private Pool pool;
  private final String token;
  private final int port;
  private final PostgresEndpoint connect;
  private final int poolSize;

  BaselineServer(PostgresEndpoint connect, int poolSize, int port, String token) {
    this.connect = connect;
    this.poolSize = poolSize;
    this.port = port;
    this.token = token;
  }

  public static void main(String[] args) {
    PostgresEndpoint connect =
        PostgresEndpoint.parse("BASELINE_PG_URL", System.getenv("BASELINE_PG_URL"));
    int poolSize = Integer.parseInt(System.getenv().getOrDefault("BASELINE_POOL_SIZE", "12"));
    int port = Integer.parseInt(System.getenv("BASELINE_PORT"));
    Vertx vertx = Vertx.vertx();
    vertx
        .deployVerticle(
            new BaselineServer(connect, poolSize, port, System.getenv("BASELINE_TOKEN")))
        .onSuccess(id -> System.out.println("baseline ready on port " + port))
        .onFailure(
            e -> {
              e.printStackTrace();
              System.exit(1);
            });
  }

  @Override
  public void start(Promise<Void> started) {
    pool = ReadPools.create(vertx, connect, poolSize, "slotkeeper-bench-baseline");
    pool.query(
            "CREATE TABLE IF NOT EXISTS baseline_orders (idempotency_key TEXT PRIMARY KEY,"
                + " request_hash TEXT NOT NULL, order_id TEXT NOT NULL, response JSONB NOT NULL,"
                + " created_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        .execute()
        .compose(
            v ->
                vertx.createHttpServer().requestHandler(this::handle).listen(port).<Void>mapEmpty())
        .onComplete(started);
  }

  private void handle(HttpServerRequest req) {
    if ("/health/ready".equals(req.path())) {
      req.response().end("{\"status\":\"UP\"}");
      return;
    }
    if (!"/v1/orders".equals(req.path()) || req.method().name().equals("GET")) {
      req.response().setStatusCode(404).end();
      return;
    }
    if (!("Bearer " + token).equals(req.getHeader("Authorization"))) {
      req.response().setStatusCode(401).end();
      return;
    }
    String key = req.getHeader("Idempotency-Key");
    if (key == null || key.isBlank()) {
      req.response().setStatusCode(400).end();
      return;
    }
    req.body()
        .compose(body -> placeOrder(key, body.toString()))
        .onSuccess(
            a -> {
              req.response()
                  .setStatusCode(a.status())
                  .putHeader("Content-Type", "application/json");
              if (a.replayed()) {
                req.response().putHeader("Idempotent-Replayed", "true");
              }
              req.response().end(a.body());
            })
        .onFailure(
            e -> {
              int status =
                  e instanceof PgException pg && "23505".equals(pg.getSqlState())
                      ? 409
                      : e instanceof IllegalArgumentException ? 400 : 500;
              req.response().setStatusCode(status).end();
            });
  }

  private record Answer(int status, String body, boolean replayed) {}

  private Future<Answer> placeOrder(String key, String text) {
    JsonObject request;
    long amount = 0;
    try {
      request = new JsonObject(text);
      JsonArray items = request.getJsonArray("items");
      if (request.getString("customerId") == null || items == null || items.isEmpty()) {
        return Future.failedFuture(new IllegalArgumentException("invalid order"));
      }
      for (int i = 0; i < items.size(); i++) {
        JsonObject item = items.getJsonObject(i);
        amount += item.getLong("qty") * item.getLong("unitPriceCents");
      }
    } catch (RuntimeException e) {
      return Future.failedFuture(new IllegalArgumentException(e));
    }
    String hash = Integer.toHexString(text.hashCode());
    long amountCents = amount;
    return pool.preparedQuery(
            "SELECT request_hash, response FROM baseline_orders WHERE idempotency_key = $1")
        .execute(Tuple.of(key))
        .compose(
            rows -> {
              if (rows.size() > 0) {
                Row row = rows.iterator().next();
                return Future.succeededFuture(
                    hash.equals(row.getString("request_hash"))
                        ? new Answer(201, row.getJsonObject("response").encode(), true)
                        : new Answer(422, "{\"title\":\"key reused\"}", false));
              }
              String orderId = UUID.randomUUID().toString();
              JsonObject response =
                  new JsonObject()
                      .put("orderId", orderId)
                      .put("status", "NEW")
                      .put("amountCents", amountCents)
                      .put("version", 1);
              return pool.preparedQuery(
                      "INSERT INTO baseline_orders (idempotency_key, request_hash, order_id,"
                          + " response) VALUES ($1, $2, $3, $4)")
                  .execute(Tuple.of(key, hash, orderId, response))
                  .map(v -> new Answer(201, response.encode(), false));
            });
  }
}
