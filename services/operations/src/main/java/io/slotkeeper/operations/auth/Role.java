package io.slotkeeper.operations.auth;

/** Who a bearer token belongs to. The operator may do everything a client may, and more. */
public enum Role {
  CLIENT,
  OPERATOR;

  /** Whether a caller with this role may use an endpoint that requires {@code required}. */
  public boolean satisfies(Role required) {
    return this == OPERATOR || required == CLIENT;
  }
}
