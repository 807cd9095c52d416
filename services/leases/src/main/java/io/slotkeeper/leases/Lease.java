package io.slotkeeper.leases;

/**
 * A granted lease: {@code owner} holds {@code name} under {@code fencingToken}. Tokens grow with
 * every grant, so a store that remembers the highest token it has seen can refuse a holder that
 * lost its lease while paused (Kleppmann, "How to do distributed locking").
 */
public record Lease(String name, String owner, long fencingToken) {

  /** The value stored in Redis; renew and release compare it, so only this grant can act. */
  String value() {
    return owner + "|" + fencingToken;
  }

  /** The lease {@code name} from its stored {@link #value()}. */
  static Lease of(String name, String value) {
    int cut = value.lastIndexOf('|');
    return new Lease(name, value.substring(0, cut), Long.parseLong(value.substring(cut + 1)));
  }
}
