package io.slotkeeper.api.http.limits;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.problem.Problems;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * Answers a request the HTTP decoder could not read (a request line too long, headers too large, a
 * malformed header line) as problem+json, like every other 4xx, instead of Vert.x's plain-text
 * answer; the connection is closed after it, as the request's end cannot be known.
 */
public final class InvalidRequests implements Handler<HttpServerRequest> {

  @Override
  public void handle(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    ApiProblem problem;
    if (cause instanceof TooLongHttpLineException) {
      problem = new ApiProblem(414, "URI Too Long", "the request line is too long");
    } else if (cause instanceof TooLongHttpHeaderException) {
      problem = new ApiProblem(431, "Request Header Fields Too Large", "the headers are too large");
    } else {
      problem = ApiProblem.badRequest("the request could not be parsed as HTTP");
    }
    send(request, problem);
  }

  /** Sends a problem on a bare response and closes the connection after it. */
  public static void send(HttpServerRequest request, ApiProblem problem) {
    HttpServerResponse response = request.response();
    if (response.ended() || response.headWritten()) {
      return;
    }
    response
        .setStatusCode(problem.status())
        .putHeader("Content-Type", Problems.CONTENT_TYPE)
        .putHeader("Connection", "close")
        .end(Problems.body(problem, null).encode())
        .onComplete(v -> request.connection().close());
  }
}
