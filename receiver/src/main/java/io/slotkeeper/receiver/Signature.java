package io.slotkeeper.receiver;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The one definition of the delivery signature, Stripe's webhook scheme: {@code
 * Slotkeeper-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">}. The sender signs
 * with this class and the receiver verifies with it. During a secret rotation the sender signs
 * under both secrets, so the header carries several {@code v1=} entries and either secret verifies.
 */
public final class Signature {

  /** The age (either way: a sender's clock may run ahead) a receiver accepts by default. */
  public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

  private static final String ALGORITHM = "HmacSHA256";
  private static final String SCHEME = "v1";
  private static final HexFormat HEX = HexFormat.of();

  private Signature() {}

  /** The header value for {@code body} signed under {@code secret} at {@code unixSeconds}. */
  public static String sign(String secret, long unixSeconds, byte[] body) {
    return sign(List.of(secret), unixSeconds, body);
  }

  /** The header value signed under every one of {@code secrets} (a rotation: old and new). */
  public static String sign(Collection<String> secrets, long unixSeconds, byte[] body) {
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("at least one secret is needed to sign");
    }
    StringBuilder header = new StringBuilder("t=").append(unixSeconds);
    for (String secret : secrets) {
      header.append(',').append(SCHEME).append('=');
      header.append(HEX.formatHex(mac(secret, unixSeconds, body)));
    }
    return header.toString();
  }

  /** {@link #sign(String, long, byte[])} of a UTF-8 body. */
  public static String sign(String secret, long unixSeconds, String body) {
    return sign(secret, unixSeconds, body.getBytes(StandardCharsets.UTF_8));
  }

  /** Checks {@code header} against {@code body} under one secret. */
  public static Verification verify(
      String secret, String header, byte[] body, Instant now, Duration tolerance) {
    return verify(List.of(secret), header, body, now, tolerance);
  }

  /**
   * Checks {@code header} against {@code body}: valid when it was signed within {@code tolerance}
   * of {@code now} (either way) and one of its {@code v1=} entries matches one of {@code secrets}
   * (the receiver's side of a rotation). Entries of other schemes are ignored, as Stripe does.
   */
  public static Verification verify(
      Collection<String> secrets, String header, byte[] body, Instant now, Duration tolerance) {
    Objects.requireNonNull(body, "body");
    if (header == null || header.isBlank()) {
      return Verification.rejected(Verification.Reason.MISSING, "no Slotkeeper-Signature header");
    }
    Long t = null;
    List<byte[]> candidates = new ArrayList<>();
    for (String part : header.split(",")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        return malformed("'" + part.strip() + "' is not a key=value pair");
      }
      String key = part.substring(0, eq).strip();
      String value = part.substring(eq + 1).strip();
      if (key.equals("t")) {
        if (t != null || !value.matches("[0-9]{1,12}")) {
          return malformed("t must appear once, as unix seconds");
        }
        t = Long.parseLong(value);
      } else if (key.equals(SCHEME)) {
        if (!value.matches("[0-9a-fA-F]{64}")) {
          return malformed("v1 must be 64 hex digits");
        }
        candidates.add(HEX.parseHex(value.toLowerCase(java.util.Locale.ROOT)));
      }
    }
    if (t == null) {
      return malformed("no t= timestamp");
    }
    if (candidates.isEmpty()) {
      return malformed("no v1= signature");
    }
    long age = now.getEpochSecond() - t;
    if (age > tolerance.toSeconds()) {
      return Verification.rejected(
          Verification.Reason.TOO_OLD,
          "signed " + age + " s ago; the tolerance is " + tolerance.toSeconds() + " s");
    }
    if (-age > tolerance.toSeconds()) {
      return Verification.rejected(
          Verification.Reason.IN_FUTURE,
          "signed " + -age + " s in the future; the tolerance is " + tolerance.toSeconds() + " s");
    }
    for (String secret : secrets) {
      byte[] expected = mac(secret, t, body);
      for (byte[] candidate : candidates) {
        if (MessageDigest.isEqual(expected, candidate)) {
          return Verification.VALID;
        }
      }
    }
    return Verification.rejected(
        Verification.Reason.MISMATCH, "no v1 signature matches the body under the secret");
  }

  private static Verification malformed(String detail) {
    return Verification.rejected(Verification.Reason.MALFORMED, detail);
  }

  private static byte[] mac(String secret, long unixSeconds, byte[] body) {
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("the signing secret is empty");
    }
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
      mac.update((unixSeconds + ".").getBytes(StandardCharsets.US_ASCII));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      // every JDK ships HmacSHA256 and takes any non-empty key
      throw new IllegalStateException(e);
    }
  }

  /** What {@link #verify} found: valid, or the reason it is not, with a detail for the answer. */
  public record Verification(Reason reason, String detail) {

    /** A signature that checks out. */
    public static final Verification VALID = new Verification(null, "valid");

    /** Why a signature is refused. */
    public enum Reason {
      MISSING,
      MALFORMED,
      TOO_OLD,
      IN_FUTURE,
      MISMATCH
    }

    static Verification rejected(Reason reason, String detail) {
      return new Verification(reason, detail);
    }

    public boolean valid() {
      return reason == null;
    }
  }
}
