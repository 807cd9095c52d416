package io.slotkeeper.platform.config;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Where PostgreSQL is, parsed from a {@code postgresql://user:pass@host:port/db} URL, in the two
 * shapes the service needs: JDBC for Axon's write side, and the URI the Vert.x PG client reads.
 */
public record PostgresEndpoint(
    String host, int port, String database, String user, String password) {

  /** Parses a PostgreSQL URL; {@code setting} names the source in the error message. */
  public static PostgresEndpoint parse(String setting, String url) {
    URI uri;
    try {
      uri = URI.create(url.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(setting, "not a URL (" + e.getMessage() + ")");
    }
    if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
      throw new ConfigException(
          setting, "expected postgresql://user:pass@host:port/db, got scheme " + uri.getScheme());
    }
    if (uri.getHost() == null) {
      throw new ConfigException(setting, "the URL names no host");
    }
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    if (path.isEmpty()) {
      throw new ConfigException(setting, "the URL names no database (…/dbname)");
    }
    String user = "postgres";
    String password = "";
    if (uri.getRawUserInfo() != null) {
      String[] parts = uri.getRawUserInfo().split(":", 2);
      user = decode(parts[0]);
      password = parts.length > 1 ? decode(parts[1]) : "";
    }
    return new PostgresEndpoint(
        uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), path, user, password);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** The JDBC URL (credentials are passed separately). */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database;
  }

  /** The same endpoint pointing at another database on the same server. */
  public PostgresEndpoint withDatabase(String otherDatabase) {
    return new PostgresEndpoint(host, port, otherDatabase, user, password);
  }

  /**
   * The endpoint as a {@code postgresql://} URL with its password, for the environment of a process
   * started with it ({@link #toString()} leaves the password out).
   */
  public String url() {
    String credentials = password.isEmpty() ? encode(user) : encode(user) + ":" + encode(password);
    return "postgresql://" + credentials + "@" + host + ":" + port + "/" + database;
  }

  private static String encode(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public String toString() {
    // Never print the password.
    return "postgresql://" + user + "@" + host + ":" + port + "/" + database;
  }
}
