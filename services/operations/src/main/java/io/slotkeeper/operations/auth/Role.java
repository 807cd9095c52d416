package io.slotkeeper.operations.auth;

/** Who a bearer token belongs to. The operator may do everything a client may, and more. */
public enum Role {
  CLIENT,
  OPERATOR;

  /**
   * Who the caller is, as far as the keys it sends go: a token names a role (not a client), so the
   * principal is the role, {@code client} or {@code operator}. Idempotency-Keys are scoped to it.
   */
  public String principal() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether a caller with this role may use an endpoint that requires {@code required}. */
  public boolean satisfies(Role required) {
    return this == OPERATOR || required == CLIENT;
  }
}
