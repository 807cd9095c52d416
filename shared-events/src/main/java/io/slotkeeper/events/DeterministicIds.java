package io.slotkeeper.events;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.UUID;

/**
 * The one place that turns meaning into identifiers. Every command ID in slotkeeper is a name-based
 * UUID (RFC 9562 version 5) of what the command is about, never a random one, so a retry, a second
 * replica or a restart computes the same ID and is recognised as a duplicate.
 */
public final class DeterministicIds {

  /** Namespace of every slotkeeper name-based UUID; fixed forever, changing it changes all IDs. */
  public static final UUID NAMESPACE = UUID.fromString("6f2f5c0e-2b1a-5c57-9d0e-7a1b3c4d5e6f");

  private DeterministicIds() {}

  /** Command ID for a request carrying the caller's Idempotency-Key on an operation. */
  public static String forIdempotencyKey(String operation, String idempotencyKey) {
    return nameBased("idem", operation, idempotencyKey).toString();
  }

  /** Aggregate ID derived from a caller's Idempotency-Key when the caller gave none. */
  public static String entityIdForKey(String entityType, String idempotencyKey) {
    return nameBased("entity", entityType, idempotencyKey).toString();
  }

  /**
   * Command ID of paying out a refund: one per refund, whoever asks (operator over HTTP, the
   * refund-settlement job) and however often, so a refund is never paid twice.
   */
  public static String issueRefund(String refundId) {
    return forStep(refundId, "issue", "");
  }

  /** Command ID of a step that follows from another command (a flow step, a line of an order). */
  public static String forStep(String parentId, String step, String target) {
    return nameBased("step", parentId, step, target).toString();
  }

  /** Refund ID of an order from the caller's key: the same key asks for the same refund. */
  public static String refundId(String orderId, String callerKey) {
    return nameBased("refund", orderId, callerKey).toString();
  }

  /**
   * ID of a job's slot: the job and the slot's nominal time, in {@link Instant#toString()} form
   * (canonical, so every instance derives the same text for the same instant).
   */
  public static String forSlot(String job, Instant nominal) {
    return nameBased("slot", job, nominal.toString()).toString();
  }

  /** Command ID of what a job's slot sends to one target; a re-fired slot sends the same ID. */
  public static String forSlotCommand(String job, Instant nominal, String target) {
    return nameBased("slot-command", job, nominal.toString(), target).toString();
  }

  /**
   * Version 5 UUID of the parts, joined unambiguously (each part is length-prefixed, so ("ab", "c")
   * and ("a", "bc") differ).
   */
  public static UUID nameBased(String... parts) {
    StringBuilder name = new StringBuilder();
    for (String part : parts) {
      if (part == null) {
        throw new IllegalArgumentException("ID parts must not be null");
      }
      name.append(part.length()).append(':').append(part).append('|');
    }
    return v5(NAMESPACE, name.toString());
  }

  static UUID v5(UUID namespace, String name) {
    MessageDigest sha1 = Digests.sha1();
    sha1.update(
        ByteBuffer.allocate(16)
            .putLong(namespace.getMostSignificantBits())
            .putLong(namespace.getLeastSignificantBits())
            .array());
    byte[] hash = sha1.digest(name.getBytes(StandardCharsets.UTF_8));
    hash[6] = (byte) ((hash[6] & 0x0f) | 0x50); // version 5
    hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // IETF variant
    ByteBuffer bb = ByteBuffer.wrap(hash, 0, 16);
    return new UUID(bb.getLong(), bb.getLong());
  }
}
