package io.slotkeeper.api.http.problem;

import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder.ErrorDataDecoderException;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder.TooLongFormFieldException;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.problem.Problems;
import io.vertx.ext.web.RoutingContext;

/** Problems as HTTP answers: problem+json, with the headers a status calls for. */
public final class HttpProblems {

  private HttpProblems() {}

  /** {@link Problems#from}, and the failures only HTTP has (a body sent as a form). */
  public static ApiProblem from(Throwable failure) {
    Throwable t = failure;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    // Vert.x decodes forms before any route can refuse the media type.
    if (t instanceof TooLongFormFieldException) {
      return new ApiProblem(413, "Payload Too Large", "a form field is too long");
    }
    if (t instanceof ErrorDataDecoderException) {
      return new ApiProblem(415, "Unsupported Media Type", "send the body as application/json");
    }
    return Problems.from(t);
  }

  /** Sends the problem as the response of the request. */
  public static void send(RoutingContext ctx, ApiProblem p) {
    if (ctx.response().ended()) {
      return;
    }
    if (p.status() == 401) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer");
    }
    p.headers().forEach((name, value) -> ctx.response().putHeader(name, value));
    ctx.response()
        .setStatusCode(p.status())
        .putHeader("Content-Type", Problems.CONTENT_TYPE)
        .end(Problems.body(p, ctx.request().path()).encode());
  }
}
