package io.slotkeeper.platform.db;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.Map;

/** The non-blocking PostgreSQL pool of the read side and the event-loop code (Vert.x PG client). */
public final class ReadPools {

  private ReadPools() {}

  /** A pool of {@code size} connections named {@code applicationName} in pg_stat_activity. */
  public static Pool create(Vertx vertx, PostgresEndpoint pg, int size, String applicationName) {
    // Planned for each request's parameters (see Database#CUSTOM_PLANS).
    return build(vertx, size, options(pg, applicationName, Database.CUSTOM_PLANS));
  }

  /**
   * The pool of the idempotency keys (see IdempotencyStore): its commits do not wait for the WAL
   * flush ({@code synchronous_commit = off}), because a lost claim or saved success is recovered by
   * the command's later synchronous commit or by re-running the deterministic command; and, as
   * every statement reaches its rows through the key index, its plans are made once per connection
   * (see {@link Database#KEYED_PLANS}). Never for anything that is itself the record of an
   * acknowledged effect.
   */
  public static Pool createKeyStore(
      Vertx vertx, PostgresEndpoint pg, int size, String applicationName) {
    return build(
        vertx, size, options(pg, applicationName, Database.KEYED_PLANS, Database.RELAXED_COMMIT));
  }

  private static Pool build(Vertx vertx, int size, PgConnectOptions connect) {
    return PgBuilder.pool()
        // Spread the connections' I/O over several event loops (by default all of them would sit
        // on the loop of whoever opened them first, usually one HTTP event loop).
        .with(
            new PoolOptions()
                .setMaxSize(size)
                .setEventLoopSize(Runtime.getRuntime().availableProcessors()))
        .connectingTo(connect)
        .using(vertx)
        .build();
  }

  /** {@code settings}: the connections' PostgreSQL settings, the same maps the JDBC pools use. */
  @SafeVarargs
  private static PgConnectOptions options(
      PostgresEndpoint pg, String applicationName, Map<String, String>... settings) {
    PgConnectOptions options =
        new PgConnectOptions()
            .setHost(pg.host())
            .setPort(pg.port())
            .setDatabase(pg.database())
            .setUser(pg.user())
            .setPassword(pg.password())
            .addProperty("application_name", applicationName)
            // Named statements per connection: PostgreSQL parses each query once, not on every
            // request.
            .setCachePreparedStatements(true);
    for (Map<String, String> group : settings) {
      group.forEach(options::addProperty);
    }
    return options;
  }
}
