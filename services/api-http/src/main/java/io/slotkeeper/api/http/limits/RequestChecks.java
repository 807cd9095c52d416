package io.slotkeeper.api.http.limits;

import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

/**
 * What the router cannot be trusted with: an HTTP/1.1 request without {@code Host} (RFC 9112 says
 * 400; Vert.x throws from the router, a 500) and a target with a malformed percent-escape (the
 * router's path normalization throws, answered in plain text with an ERROR and its stack trace).
 * Both are answered here as 400 problem+json.
 */
public final class RequestChecks {

  private RequestChecks() {}

  /** Checks each request before handing it to {@code next}. */
  public static Handler<HttpServerRequest> before(Handler<HttpServerRequest> next) {
    return request -> {
      String refused = refusal(request);
      if (refused != null) {
        InvalidRequests.send(request, ApiProblem.badRequest(refused));
        return;
      }
      next.handle(request);
    };
  }

  static String refusal(HttpServerRequest request) {
    if (request.version() == HttpVersion.HTTP_1_1 && request.getHeader("Host") == null) {
      return "an HTTP/1.1 request needs a Host header";
    }
    if (!wellEscaped(request.uri())) {
      return "the request target has a malformed percent-escape";
    }
    return null;
  }

  /** Whether every {@code %} is followed by two hex digits. */
  static boolean wellEscaped(String target) {
    for (int i = target.indexOf('%'); i >= 0; i = target.indexOf('%', i + 1)) {
      if (i + 2 >= target.length()
          || Character.digit(target.charAt(i + 1), 16) < 0
          || Character.digit(target.charAt(i + 2), 16) < 0) {
        return false;
      }
    }
    return true;
  }
}
