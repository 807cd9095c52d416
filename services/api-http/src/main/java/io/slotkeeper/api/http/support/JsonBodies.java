package io.slotkeeper.api.http.support;

import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Parses request bodies as JSON objects, with a 400 (or 415) that says what is wrong. */
public final class JsonBodies {

  private JsonBodies() {}

  /** The body as a JSON object; required. */
  public static JsonObject object(RoutingContext ctx) {
    Buffer buffer = ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      throw ApiProblem.badRequest("a JSON object body is required");
    }
    return parse(ctx, buffer);
  }

  /** The body as a JSON object, or an empty object when there is none. */
  public static JsonObject optionalObject(RoutingContext ctx) {
    Buffer buffer = ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      // A form body is decoded into attributes and leaves no buffer: refuse it, never ignore it.
      String type = ctx.request().getHeader("Content-Type");
      if (type != null && !type.toLowerCase().startsWith("application/json") && declaresBody(ctx)) {
        throw new ApiProblem(415, "Unsupported Media Type", "send the body as application/json");
      }
      return new JsonObject();
    }
    return parse(ctx, buffer);
  }

  private static boolean declaresBody(RoutingContext ctx) {
    String length = ctx.request().getHeader("Content-Length");
    return ctx.request().getHeader("Transfer-Encoding") != null
        || (length != null && !length.trim().equals("0"));
  }

  private static JsonObject parse(RoutingContext ctx, Buffer buffer) {
    String type = ctx.request().getHeader("Content-Type");
    if (type != null && !type.toLowerCase().startsWith("application/json")) {
      throw new ApiProblem(415, "Unsupported Media Type", "send the body as application/json");
    }
    Object value;
    try {
      value = io.vertx.core.json.Json.decodeValue(buffer);
    } catch (DecodeException e) {
      throw ApiProblem.badRequest("the body is not valid JSON");
    }
    if (!(value instanceof JsonObject)) {
      throw ApiProblem.badRequest("the body must be a JSON object");
    }
    return (JsonObject) value;
  }
}
