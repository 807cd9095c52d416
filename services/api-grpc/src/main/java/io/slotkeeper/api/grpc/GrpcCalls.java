package io.slotkeeper.api.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.IdempotencyKeys;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.auth.TokenCheck;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.problem.Problems;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import io.vertx.grpc.server.ServiceBuilder;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How every RPC is served: bearer auth from the {@code authorization} metadata, the operation
 * (shared with HTTP), its HTTP-shaped answer parsed into the response message (the messages mirror
 * the JSON fields), and failures mapped once by {@link GrpcStatuses}.
 */
final class GrpcCalls {

  /** Metadata carrying the idempotency key when the request's field is empty. */
  static final String KEY_METADATA = "idempotency-key";

  /** Response metadata set when the answer is the replay of the key's first request. */
  static final String REPLAYED_METADATA = "idempotent-replayed";

  private static final JsonFormat.Parser JSON = JsonFormat.parser().ignoringUnknownFields();

  private final TokenCheck auth;

  GrpcCalls(TokenCheck auth) {
    this.auth = auth;
  }

  /**
   * The idempotency key: the request's field, else the {@code idempotency-key} metadata; without
   * surrounding spaces, as over HTTP ({@link IdempotencyKeys#normalize}).
   */
  static String key(String field, MultiMap headers) {
    String key = IdempotencyKeys.normalize(field);
    return key != null && !key.isEmpty()
        ? key
        : IdempotencyKeys.normalize(headers.get(KEY_METADATA));
  }

  /** Who called a mutating RPC: the caller's principal, and the metadata that may carry a key. */
  record Caller(String principal, MultiMap headers) {

    /** The call's idempotency key ({@link GrpcCalls#key}), within the caller's principal. */
    IdempotencyKey key(String field) {
      return new IdempotencyKey(principal, GrpcCalls.key(field, headers));
    }
  }

  /** Binds a mutating RPC: an idempotent operation whose saved answer becomes the response. */
  <Req, Resp extends Message> void command(
      ServiceBuilder service,
      ServiceMethod<Req, Resp> method,
      Role role,
      BiFunction<Req, Caller, Future<Outcome>> operation,
      Supplier<Message.Builder> response) {
    serve(
        service,
        method,
        role,
        (msg, request, caller) ->
            operation
                .apply(msg, new Caller(caller.principal(), request.headers()))
                .map(
                    outcome -> {
                      if (outcome.replayed()) {
                        request.response().headers().set(REPLAYED_METADATA, "true");
                      }
                      return message(outcome.response().status(), outcome.body(), response);
                    }));
  }

  /** Binds a read RPC: an operation answering JSON, parsed into the response message. */
  <Req, Resp extends Message> void query(
      ServiceBuilder service,
      ServiceMethod<Req, Resp> method,
      Role role,
      Function<Req, Future<JsonObject>> operation,
      Supplier<Message.Builder> response) {
    unary(
        service,
        method,
        role,
        (msg, request) -> operation.apply(msg).map(json -> message(200, json, response)));
  }

  /** Binds a unary RPC that answers the message its function produces. */
  <Req, Resp> void unary(
      ServiceBuilder service,
      ServiceMethod<Req, Resp> method,
      Role role,
      BiFunction<Req, GrpcServerRequest<Req, Resp>, Future<Resp>> call) {
    serve(service, method, role, (msg, request, caller) -> call.apply(msg, request));
  }

  /** A unary RPC's work, given the authorized caller's role. */
  private interface Call<Req, Resp> {
    Future<Resp> apply(Req message, GrpcServerRequest<Req, Resp> request, Role caller);
  }

  private <Req, Resp> void serve(
      ServiceBuilder service, ServiceMethod<Req, Resp> method, Role role, Call<Req, Resp> call) {
    service.bind(
        method,
        request ->
            request.messageHandler(
                message -> {
                  Future<Resp> answer;
                  try {
                    Role caller = authorize(request, role);
                    answer = call.apply(decode(method, message), request, caller);
                  } catch (RuntimeException e) {
                    answer = Future.failedFuture(e);
                  }
                  answer
                      .onSuccess(r -> request.response().end(r))
                      .onFailure(e -> fail(request.response(), e));
                }));
  }

  /** Checks the caller's bearer token (throws a 401/403 problem); returns the caller's role. */
  Role authorize(GrpcServerRequest<?, ?> request, Role role) {
    return auth.check(request.headers().get("authorization"), role);
  }

  /**
   * The request message, decoded after the caller was authorized; a malformed one (bad protobuf,
   * invalid UTF-8 in a string) is INVALID_ARGUMENT with the parser's reason, not a stream reset.
   */
  static <Req> Req decode(ServiceMethod<Req, ?> method, GrpcMessage message) {
    try {
      return method.decoder().decode(message);
    } catch (CodecException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new ApiProblem(
          400, "Bad Request", "the request message is malformed: " + cause.getMessage());
    }
  }

  /**
   * Ends the call with the failure's gRPC status and a message a caller can act on, encoded as the
   * spec says (Vert.x's own encoding of {@code statusMessage} escapes spaces and colons).
   */
  static void fail(GrpcServerResponse<?, ?> response, Throwable failure) {
    ApiProblem p = Problems.from(failure);
    response.trailers().set("grpc-message", GrpcMessages.encode(GrpcStatuses.message(p)));
    response.status(GrpcStatuses.of(p)).end();
  }

  /** The message of a 2xx answer; the problem of an error answer (saved errors replay too). */
  @SuppressWarnings("unchecked")
  static <Resp extends Message> Resp message(
      int status, JsonObject body, Supplier<Message.Builder> builder) {
    if (status >= 400) {
      throw GrpcStatuses.problem(status, body);
    }
    Message.Builder b = builder.get();
    try {
      JSON.merge(body.encode(), b);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("answer does not fit " + b.getDescriptorForType(), e);
    }
    return (Resp) b.build();
  }

  /** Puts a string field into a request body unless it is empty (proto3's "absent"). */
  static JsonObject putIfSet(JsonObject body, String name, String value) {
    if (value != null && !value.isEmpty()) {
      body.put(name, value);
    }
    return body;
  }
}
