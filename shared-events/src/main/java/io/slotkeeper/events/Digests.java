package io.slotkeeper.events;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The message digests behind slotkeeper's IDs and fingerprints, one instance per thread: {@link
 * MessageDigest#getInstance} walks the security providers on every call, and IDs and fingerprints
 * are computed several times per request.
 */
public final class Digests {

  private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> of("SHA-1"));
  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(() -> of("SHA-256"));

  private Digests() {}

  /** This thread's SHA-1, reset. */
  public static MessageDigest sha1() {
    MessageDigest d = SHA1.get();
    d.reset();
    return d;
  }

  /** This thread's SHA-256, reset. */
  public static MessageDigest sha256() {
    MessageDigest d = SHA256.get();
    d.reset();
    return d;
  }

  /** Lower-case hex of the SHA-256 of {@code bytes}. */
  public static String sha256Hex(byte[] bytes) {
    return HexFormat.of().formatHex(sha256().digest(bytes));
  }

  private static MessageDigest of(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is required by every Java platform", e);
    }
  }
}
