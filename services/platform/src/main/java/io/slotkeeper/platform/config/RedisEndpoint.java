package io.slotkeeper.platform.config;

import java.net.URI;

/** Where Redis is, from a {@code redis://host:port} URL. */
public record RedisEndpoint(String host, int port, String password) {

  /** Parses a Redis URL; {@code setting} names the source in the error message. */
  public static RedisEndpoint parse(String setting, String url) {
    URI uri;
    try {
      uri = URI.create(url.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(setting, "not a URL (" + e.getMessage() + ")");
    }
    if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new ConfigException(setting, "expected redis://host:port, got " + url);
    }
    String password = null;
    if (uri.getUserInfo() != null) {
      String info = uri.getUserInfo();
      password = info.contains(":") ? info.substring(info.indexOf(':') + 1) : info;
    }
    return new RedisEndpoint(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(), password);
  }

  /** The connection string the Vert.x Redis client takes. */
  public String connectionString() {
    return password == null
        ? "redis://" + host + ":" + port
        : "redis://:" + password + "@" + host + ":" + port;
  }

  @Override
  public String toString() {
    return "redis://" + host + ":" + port;
  }
}
