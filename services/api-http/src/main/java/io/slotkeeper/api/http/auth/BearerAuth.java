package io.slotkeeper.api.http.auth;

import io.slotkeeper.api.http.problem.HttpProblems;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.auth.TokenCheck;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Route guard: {@code Authorization: Bearer <token>} ({@link TokenCheck}); 401 without a valid
 * token, 403 for a role too low. The caller's role is kept under {@link #ROLE_KEY}.
 */
public final class BearerAuth {

  public static final String ROLE_KEY = "slotkeeper.role";

  private final TokenCheck tokens;

  public BearerAuth(TokenCheck tokens) {
    this.tokens = tokens;
  }

  /** A handler that lets the request through only for callers with the role. */
  public Handler<RoutingContext> require(Role required) {
    return ctx -> {
      Role role;
      try {
        role = tokens.check(ctx.request().getHeader("Authorization"), required);
      } catch (ApiProblem p) {
        HttpProblems.send(ctx, p);
        return;
      }
      ctx.put(ROLE_KEY, role);
      ctx.next();
    };
  }
}
