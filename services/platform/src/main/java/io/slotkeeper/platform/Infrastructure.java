package io.slotkeeper.platform;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import io.slotkeeper.platform.config.SlotkeeperConfig;
import io.slotkeeper.platform.embedded.EmbeddedPostgresServer;
import io.slotkeeper.platform.embedded.EmbeddedRedisServer;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL and Redis the service talks to: the configured ones, or embedded ones started here
 * when none is configured (the zero-configuration default of {@code make run}).
 */
public final class Infrastructure implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Infrastructure.class);

  private final PostgresEndpoint postgres;
  private final RedisEndpoint redis;
  private final Optional<EmbeddedPostgresServer> embeddedPostgres;
  private final Optional<EmbeddedRedisServer> embeddedRedis;

  private Infrastructure(
      PostgresEndpoint postgres,
      RedisEndpoint redis,
      Optional<EmbeddedPostgresServer> embeddedPostgres,
      Optional<EmbeddedRedisServer> embeddedRedis) {
    this.postgres = postgres;
    this.redis = redis;
    this.embeddedPostgres = embeddedPostgres;
    this.embeddedRedis = embeddedRedis;
  }

  /** Resolves both endpoints, starting embedded servers for the ones not configured. */
  public static Infrastructure start(SlotkeeperConfig config) {
    Optional<EmbeddedPostgresServer> pg =
        config.postgres().isPresent()
            ? Optional.empty()
            : Optional.of(EmbeddedPostgresServer.start(config.dataDir()));
    Optional<EmbeddedRedisServer> redis;
    try {
      redis =
          config.redis().isPresent()
              ? Optional.empty()
              : Optional.of(EmbeddedRedisServer.start(config.dataDir()));
    } catch (RuntimeException e) {
      pg.ifPresent(EmbeddedPostgresServer::close);
      throw e;
    }
    PostgresEndpoint pgEndpoint = config.postgres().orElseGet(() -> pg.orElseThrow().endpoint());
    RedisEndpoint redisEndpoint = config.redis().orElseGet(() -> redis.orElseThrow().endpoint());
    log.info(
        "PostgreSQL: {} ({}), Redis: {} ({})",
        pgEndpoint,
        pg.isPresent() ? "embedded" : "external",
        redisEndpoint,
        redis.isPresent() ? "embedded" : "external");
    return new Infrastructure(pgEndpoint, redisEndpoint, pg, redis);
  }

  /**
   * Whether the service runs on embedded servers it started itself ({@code make run} on a
   * developer's machine, no PostgreSQL configured).
   */
  public boolean embedded() {
    return embeddedPostgres.isPresent();
  }

  public PostgresEndpoint postgres() {
    return postgres;
  }

  public RedisEndpoint redis() {
    return redis;
  }

  /** Stops the embedded servers this instance started; external ones are left alone. */
  @Override
  public void close() {
    embeddedRedis.ifPresent(EmbeddedRedisServer::close);
    embeddedPostgres.ifPresent(EmbeddedPostgresServer::close);
  }
}
