package io.slotkeeper.operations.auth;

import io.slotkeeper.operations.problem.ApiProblem;
import java.util.Optional;

/**
 * The bearer token check of both APIs: {@code Authorization: Bearer <token>} (an HTTP header or
 * gRPC metadata); 401 without a valid token, 403 for a role too low.
 */
public final class TokenCheck {

  private final Tokens tokens;

  public TokenCheck(Tokens tokens) {
    this.tokens = tokens;
  }

  /**
   * The caller's role from an {@code Authorization} value (HTTP header or gRPC metadata); a 401
   * problem without a valid token, 403 for a role too low.
   */
  public Role check(String authorization, Role required) {
    String token =
        authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
            ? authorization.substring(7).trim()
            : null;
    Optional<Role> role = tokens.roleOf(token);
    if (role.isEmpty()) {
      throw new ApiProblem(
          401, "Unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
    }
    if (!role.get().satisfies(required)) {
      throw new ApiProblem(
          403, "Forbidden", "this operation needs the " + required.name().toLowerCase() + " role");
    }
    return role.get();
  }
}
