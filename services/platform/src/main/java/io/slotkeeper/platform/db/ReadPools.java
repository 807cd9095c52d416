package io.slotkeeper.platform.db;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/** The non-blocking PostgreSQL pool of the read side and the event-loop code (Vert.x PG client). */
public final class ReadPools {

  private ReadPools() {}

  /** A pool of {@code size} connections named {@code applicationName} in pg_stat_activity. */
  public static Pool create(Vertx vertx, PostgresEndpoint pg, int size, String applicationName) {
    PgConnectOptions connect =
        new PgConnectOptions()
            .setHost(pg.host())
            .setPort(pg.port())
            .setDatabase(pg.database())
            .setUser(pg.user())
            .setPassword(pg.password())
            .addProperty("application_name", applicationName);
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(size))
        .connectingTo(connect)
        .using(vertx)
        .build();
  }
}
