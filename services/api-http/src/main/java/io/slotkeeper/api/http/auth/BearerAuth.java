package io.slotkeeper.api.http.auth;

import io.slotkeeper.api.http.problem.ApiProblem;
import io.slotkeeper.api.http.problem.Problems;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;

/**
 * Route guard: {@code Authorization: Bearer <token>}; 401 without a valid token, 403 for a role too
 * low.
 */
public final class BearerAuth {

  public static final String ROLE_KEY = "slotkeeper.role";

  private final Tokens tokens;

  public BearerAuth(Tokens tokens) {
    this.tokens = tokens;
  }

  /** A handler that lets the request through only for callers with the role. */
  public Handler<RoutingContext> require(Role required) {
    return ctx -> {
      Role role;
      try {
        role = check(ctx.request().getHeader("Authorization"), required);
      } catch (ApiProblem p) {
        Problems.send(ctx, p);
        return;
      }
      ctx.put(ROLE_KEY, role);
      ctx.next();
    };
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
