package io.slotkeeper.delivery;

import io.slotkeeper.scheduler.schedule.job.TargetCheck;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The SSRF guard: which hosts a schedule's target may call, checked on the URL when a schedule is
 * created or changed and again on every address the host resolves to at delivery (so a name that
 * later resolves to a private address, DNS rebinding, is refused then).
 *
 * <p>A host must match {@code SLOTKEEPER_HTTP_TARGETS_ALLOW} (comma-separated: {@code
 * api.example.com}, {@code *.example.com}, either with {@code :port}, or an IP literal). An empty
 * list allows no host, except loopback when the service runs embedded ({@code make run}). Loopback,
 * link-local (169.254/16, fe80::/10: the cloud metadata address 169.254.169.254 among them),
 * private (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10), unspecified and multicast
 * addresses are refused unless an entry names the host exactly (not through a wildcard).
 */
public final class TargetGuard implements TargetCheck {

  /** The environment variable of the allowed hosts. */
  public static final String ALLOW_VARIABLE = "SLOTKEEPER_HTTP_TARGETS_ALLOW";

  private static final Set<String> METADATA_NAMES =
      Set.of("metadata.google.internal", "metadata", "instance-data");
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private record Entry(String host, boolean wildcard, int port) {

    boolean matches(String h, int p) {
      if (port != -1 && port != p) {
        return false;
      }
      return wildcard ? h.endsWith("." + host) : h.equals(host);
    }
  }

  private final List<Entry> allowed;
  private final boolean loopbackAllowed;

  private TargetGuard(List<Entry> allowed, boolean loopbackAllowed) {
    this.allowed = List.copyOf(allowed);
    this.loopbackAllowed = loopbackAllowed;
  }

  /**
   * The guard of {@code allowList} (the variable's value; null or blank: none). {@code embedded}:
   * the service runs on its own embedded PostgreSQL and Redis, so on a developer's machine, where
   * loopback targets are allowed. A malformed entry is an {@link IllegalArgumentException} naming
   * it.
   */
  public static TargetGuard of(String allowList, boolean embedded) {
    List<Entry> entries = new ArrayList<>();
    if (allowList != null) {
      for (String raw : allowList.split(",")) {
        String e = raw.trim().toLowerCase(Locale.ROOT);
        if (!e.isEmpty()) {
          entries.add(entry(e));
        }
      }
    }
    return new TargetGuard(entries, embedded);
  }

  private static Entry entry(String e) {
    String host = e;
    int port = -1;
    int colon = e.lastIndexOf(':');
    boolean bracketed = e.startsWith("[");
    if (colon > 0 && (bracketed ? e.indexOf(']') < colon : e.indexOf(':') == colon)) {
      try {
        port = Integer.parseInt(e.substring(colon + 1));
      } catch (NumberFormatException x) {
        throw new IllegalArgumentException(ALLOW_VARIABLE + ": bad port in '" + e + "'");
      }
      host = e.substring(0, colon);
    }
    host = host.replace("[", "").replace("]", "");
    boolean wildcard = host.startsWith("*.");
    if (wildcard) {
      host = host.substring(2);
    }
    if (host.isEmpty() || host.contains("*") || host.contains("/")) {
      throw new IllegalArgumentException(
          ALLOW_VARIABLE + ": '" + e + "' is not a host, *.domain or host:port");
    }
    return new Entry(host, wildcard, port);
  }

  /** The URL's check, without DNS: the host must be allowed, a special IP literal named exactly. */
  @Override
  public Optional<String> refusal(URI url) {
    String host = host(url);
    int port = port(url);
    Optional<InetAddress> literal = literal(host);
    if (literal.isPresent()) {
      return refusal(host, port, literal.get());
    }
    if (METADATA_NAMES.contains(host) && !exactly(host, port)) {
      return Optional.of("host " + host + " is a cloud metadata service, refused");
    }
    if (host.equals("localhost") && loopbackAllowed) {
      return Optional.empty();
    }
    if (allowed.stream().noneMatch(e -> e.matches(host, port))) {
      return Optional.of(notListed(host, port));
    }
    return Optional.empty();
  }

  /**
   * The check at delivery of one address the URL's host resolved to: empty when the delivery may
   * connect to it.
   */
  public Optional<String> refusal(URI url, InetAddress resolved) {
    Optional<String> byName = refusal(url);
    if (byName.isPresent()) {
      return byName;
    }
    return refusal(host(url), port(url), resolved);
  }

  private Optional<String> refusal(String host, int port, InetAddress address) {
    Optional<String> special = special(address);
    if (special.isEmpty()) {
      return allowed.stream().anyMatch(e -> e.matches(host, port))
              || allowed.stream().anyMatch(e -> e.matches(address.getHostAddress(), port))
          ? Optional.empty()
          : Optional.of(notListed(host, port));
    }
    if (address.isLoopbackAddress() && loopbackAllowed) {
      return Optional.empty();
    }
    if (exactly(host, port) || exactly(address.getHostAddress(), port)) {
      return Optional.empty();
    }
    return Optional.of(
        "host "
            + host
            + " is "
            + (host.equals(address.getHostAddress()) ? "" : "at " + address.getHostAddress() + ", ")
            + "a "
            + special.get()
            + " address, refused unless "
            + ALLOW_VARIABLE
            + " names it exactly");
  }

  private boolean exactly(String host, int port) {
    return allowed.stream().anyMatch(e -> !e.wildcard() && e.matches(host, port));
  }

  private String notListed(String host, int port) {
    return "host "
        + host
        + ":"
        + port
        + " is not allowed by "
        + ALLOW_VARIABLE
        + (allowed.isEmpty() ? " (empty: no host is)" : "");
  }

  /** What kind of address a target must not reach unless named exactly, if it is one. */
  static Optional<String> special(InetAddress a) {
    if (a instanceof Inet6Address) {
      byte[] b = a.getAddress();
      if (isNat64(b)) {
        return special(v4(b[12], b[13], b[14], b[15]));
      }
      if ((b[0] & 0xfe) == 0xfc) {
        return Optional.of("private (fc00::/7)");
      }
    }
    if (a.isLoopbackAddress()) {
      return Optional.of("loopback");
    }
    if (a.isLinkLocalAddress()) {
      return Optional.of("link-local (metadata)");
    }
    if (a.isSiteLocalAddress()) {
      return Optional.of("private");
    }
    if (a.isAnyLocalAddress() || a.isMulticastAddress()) {
      return Optional.of("unspecified or multicast");
    }
    if (a instanceof Inet4Address) {
      byte[] b = a.getAddress();
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      if (first == 0 || first >= 240) {
        return Optional.of("reserved");
      }
      if (first == 100 && second >= 64 && second < 128) {
        return Optional.of("shared (100.64/10, metadata)");
      }
    }
    return Optional.empty();
  }

  private static boolean isNat64(byte[] b) {
    // 64:ff9b::/96 carries an IPv4 address in its last four bytes.
    if (b[0] != 0 || b[1] != 0x64 || (b[2] & 0xff) != 0xff || (b[3] & 0xff) != 0x9b) {
      return false;
    }
    for (int i = 4; i < 12; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static InetAddress v4(byte a, byte b, byte c, byte d) {
    try {
      return InetAddress.getByAddress(new byte[] {a, b, c, d});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The host as an address when it is an IP literal (no DNS lookup), else empty. */
  static Optional<InetAddress> literal(String host) {
    if (!host.contains(":") && !IPV4.matcher(host).matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(InetAddress.getByName(host));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }

  static String host(URI url) {
    String h = url.getHost().toLowerCase(Locale.ROOT);
    return h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
  }

  static int port(URI url) {
    return url.getPort() != -1
        ? url.getPort()
        : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
  }
}
