package io.slotkeeper.api.http.support;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Read your writes: a read of an entity that a write just acknowledged waits, briefly, for the read
 * table to hold it.
 *
 * <p>Read tables follow the event store through projections, a few milliseconds behind; a GET of
 * the {@code Location} a 201 just named could find nothing. So every acknowledged write of an
 * entity is remembered here (per process, for {@link #REMEMBERED_FOR}) with what the write answered
 * (the entity's version; a refund's status, its rows having no version), and a read of that entity
 * whose row is missing, or older, is asked again every few milliseconds (on timers: no event loop
 * waits) until the row has caught up, for at most {@code maxWait}; then the answer is a 503
 * problem, never a 404 for an entity the service has acknowledged. A client may also name the
 * version it needs ({@value #MIN_VERSION}, the {@code version} of a write's answer), which works on
 * any instance. A read of anything else is not delayed at all.
 */
public final class ReadYourWrites {

  /** The request header naming the lowest version of the entity a read may answer with. */
  public static final String MIN_VERSION = "Slotkeeper-Min-Version";

  static final Duration REMEMBERED_FOR = Duration.ofSeconds(30);
  static final int REMEMBERED = 65_536;
  private static final long FIRST_RETRY_MS = 2;
  private static final long LONGEST_RETRY_MS = 50;

  /**
   * What a read must show: a version at least {@code version} (-1: any; rows without a version
   * pass), and {@code status} when not null.
   */
  record Expected(long version, String status) {

    Expected and(Expected later) {
      return new Expected(
          Math.max(version, later.version), later.status != null ? later.status : status);
    }

    boolean metBy(JsonObject row) {
      Object v = row.getValue("version");
      boolean versionMet = !(v instanceof Number) || ((Number) v).longValue() >= version;
      return versionMet && (status == null || status.equals(row.getString("status")));
    }

    @Override
    public String toString() {
      return (version >= 0 ? "version " + version : "")
          + (status != null ? (version >= 0 ? ", " : "") + "status " + status : "");
    }
  }

  private final Vertx vertx;
  private final Duration maxWait;
  private final Cache<String, Expected> written =
      Caffeine.newBuilder().expireAfterWrite(REMEMBERED_FOR).maximumSize(REMEMBERED).build();

  public ReadYourWrites(Vertx vertx, Duration maxWait) {
    this.vertx = vertx;
    this.maxWait = maxWait;
  }

  /**
   * Remembers the entity of a successful write's answer: its ID in field {@code idField}, its
   * {@code version} if it has one, and its {@code status} when {@code withStatus} (a refund's
   * state, its rows having no version).
   */
  public Future<Outcome> remember(
      Future<Outcome> write, String kind, String idField, boolean withStatus) {
    return write.onSuccess(
        o -> {
          if (o.response().status() < 300) {
            JsonObject body = o.body();
            String id = body.getString(idField);
            if (id != null) {
              Expected e =
                  new Expected(
                      body.getLong("version", -1L), withStatus ? body.getString("status") : null);
              written.asMap().merge(kind + "/" + id, e, Expected::and);
            }
          }
        });
  }

  /**
   * Reads the entity that the request's path parameter {@code idParam} names with {@code read}
   * (which fails with a 404 problem while there is no row), waiting for what this instance
   * acknowledged and the version the {@value #MIN_VERSION} header asks for.
   */
  public Future<JsonObject> read(
      RoutingContext ctx, String kind, String idParam, Function<String, Future<JsonObject>> read) {
    String id = ctx.pathParam(idParam);
    long minVersion;
    try {
      minVersion = minVersion(ctx.request().getHeader(MIN_VERSION));
    } catch (ApiProblem p) {
      return Future.failedFuture(p);
    }
    Expected remembered = written.getIfPresent(kind + "/" + id);
    if (remembered == null && minVersion < 0) {
      return read.apply(id);
    }
    Expected wanted =
        (remembered == null ? new Expected(-1, null) : remembered)
            .and(new Expected(minVersion, null));
    return attempt(kind, id, wanted, () -> read.apply(id), deadline(), FIRST_RETRY_MS);
  }

  /** Waits (as {@link #read}) until the entity is readable, when this instance just wrote it. */
  public Future<Void> awaitWritten(String kind, String id, Supplier<Future<JsonObject>> read) {
    return awaitRemembered(kind, id, read, remembered -> new Expected(-1, null));
  }

  /**
   * Waits (as {@link #read}) until the read table shows everything this instance acknowledged of
   * the entity (its version, its status), when it did; then completes with nothing.
   */
  public Future<Void> awaitAcknowledged(String kind, String id, Supplier<Future<JsonObject>> read) {
    return awaitRemembered(kind, id, read, remembered -> remembered);
  }

  /** Waits for {@code wanted} of what this instance remembers of the entity; at once if nothing. */
  private Future<Void> awaitRemembered(
      String kind,
      String id,
      Supplier<Future<JsonObject>> read,
      Function<Expected, Expected> wanted) {
    Expected remembered = written.getIfPresent(kind + "/" + id);
    if (remembered == null) {
      return Future.succeededFuture();
    }
    return attempt(kind, id, wanted.apply(remembered), read, deadline(), FIRST_RETRY_MS).mapEmpty();
  }

  /** The {@value #MIN_VERSION} header's value; -1 when absent, a 400 problem when not a number. */
  static long minVersion(String header) {
    if (header == null) {
      return -1;
    }
    try {
      long v = Long.parseLong(header.trim());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiProblem.badRequest(MIN_VERSION + " must be a version: a whole number from 0");
  }

  private long deadline() {
    return System.nanoTime() + maxWait.toNanos();
  }

  private Future<JsonObject> attempt(
      String kind,
      String id,
      Expected wanted,
      Supplier<Future<JsonObject>> read,
      long deadline,
      long retryMs) {
    return read.get()
        .transform(
            ar -> {
              if (ar.succeeded() && wanted.metBy(ar.result())) {
                return Future.succeededFuture(ar.result());
              }
              if (ar.failed() && !isNotFound(ar.cause())) {
                return Future.failedFuture(ar.cause());
              }
              if (System.nanoTime() >= deadline) {
                return Future.failedFuture(
                    new ApiProblem(
                        503,
                        "Not Yet Readable",
                        kind
                            + " "
                            + id
                            + (wanted.toString().isEmpty() ? "" : " at " + wanted)
                            + " is not in the read model yet; retry shortly"));
              }
              Promise<Void> later = Promise.promise();
              vertx.setTimer(retryMs, t -> later.complete());
              return later
                  .future()
                  .compose(
                      v ->
                          attempt(
                              kind,
                              id,
                              wanted,
                              read,
                              deadline,
                              Math.min(retryMs * 2, LONGEST_RETRY_MS)));
            });
  }

  private static boolean isNotFound(Throwable t) {
    return t instanceof ApiProblem && ((ApiProblem) t).status() == 404;
  }
}
