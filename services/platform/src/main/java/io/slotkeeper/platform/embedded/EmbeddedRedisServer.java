package io.slotkeeper.platform.embedded;

import io.slotkeeper.platform.config.RedisEndpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/** A real redis-server from {@code com.github.codemonstur:embedded-redis}, on a free port. */
public final class EmbeddedRedisServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisServer.class);

  private final RedisServer server;
  private final RedisEndpoint endpoint;

  private EmbeddedRedisServer(RedisServer server, RedisEndpoint endpoint) {
    this.server = server;
    this.endpoint = endpoint;
  }

  /** Starts Redis on a free port with its append-only file under {@code dataDir/redis}. */
  public static EmbeddedRedisServer start(Path dataDir) {
    return start(dataDir, FreePorts.find());
  }

  /**
   * Starts Redis on {@code port} with its append-only file under {@code dataDir/redis}. Starting
   * again on the same directory and port after {@link #close()} is a Redis restart: same address,
   * the data the append-only file kept.
   */
  public static EmbeddedRedisServer start(Path dataDir, int port) {
    Path dir = dataDir.resolve("redis");
    try {
      Files.createDirectories(dir);
      RedisServer server =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("dir " + dir)
              .setting("appendonly yes")
              // No "logfile": the library reads stdout to learn that Redis is ready.
              .build();
      server.start();
      RedisEndpoint endpoint = new RedisEndpoint("127.0.0.1", port, null);
      log.info("embedded Redis started at {} (data {})", endpoint, dir);
      return new EmbeddedRedisServer(server, endpoint);
    } catch (IOException | RuntimeException e) {
      throw new EmbeddedServerException("embedded Redis did not start: " + e.getMessage(), e);
    }
  }

  public RedisEndpoint endpoint() {
    return endpoint;
  }

  @Override
  public void close() {
    try {
      server.stop();
      log.info("embedded Redis stopped");
    } catch (IOException e) {
      log.warn("embedded Redis did not stop cleanly: {}", e.getMessage());
    }
  }
}
