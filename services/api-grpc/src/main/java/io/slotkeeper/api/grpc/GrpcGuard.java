package io.slotkeeper.api.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.auth.TokenCheck;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.internal.http.HttpServerRequestWrapper;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.health.v1.HealthCheckRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * Stands in front of Vert.x's gRPC server and answers, with a gRPC status and a readable message,
 * everything that must not reach it: a call of our API without a valid token (before a byte of its
 * body is read), an unsupported {@code grpc-encoding} (UNIMPLEMENTED), a frame longer than {@code
 * maxMessageBytes} or one that inflates beyond it (RESOURCE_EXHAUSTED, checked while inflating), a
 * compressed frame without an encoding or a body ending inside a frame (INTERNAL), and a call of a
 * single-request method with no request or more than one (INVALID_ARGUMENT). Vert.x inflates gzip
 * without a limit and leaves the other cases hanging, so the guard inflates itself and hands the
 * server identity frames only. Reflection (a bidirectional stream) is deframed and inflated the
 * same way, but its messages pass as they come.
 */
final class GrpcGuard implements Handler<HttpServerRequest> {

  private static final String API_PREFIX = "/slotkeeper.v1.";
  private static final String STREAMING_PREFIX = "/grpc.reflection.";
  private static final String HEALTH_PREFIX = "/grpc.health.v1.Health/";

  private final Handler<HttpServerRequest> server;
  private final TokenCheck auth;
  private final int maxMessageBytes;

  GrpcGuard(Handler<HttpServerRequest> server, TokenCheck auth, int maxMessageBytes) {
    this.server = server;
    this.auth = auth;
    this.maxMessageBytes = maxMessageBytes;
  }

  @Override
  public void handle(HttpServerRequest request) {
    String type = request.getHeader("content-type");
    if (type == null || !type.startsWith("application/grpc")) {
      server.handle(request); // not gRPC: Vert.x answers it (415)
      return;
    }
    String encoding = request.getHeader("grpc-encoding");
    boolean gzip = "gzip".equals(encoding);
    if (encoding != null && !gzip && !"identity".equals(encoding)) {
      request.response().putHeader("grpc-accept-encoding", "gzip");
      trailersOnly(
          request.response(),
          GrpcStatus.UNIMPLEMENTED,
          "grpc-encoding '" + encoding + "' is not supported; send gzip or identity");
      return;
    }
    if (request.path().startsWith(API_PREFIX)) {
      try {
        auth.check(request.getHeader("authorization"), Role.CLIENT);
      } catch (ApiProblem p) {
        if (p.status() == 401) {
          trailersOnly(request.response(), GrpcStatus.UNAUTHENTICATED, p.detail());
          return;
        }
        // 403 is the operation's to answer (it knows the role it needs).
      }
    }
    server.handle(
        new Guarded(
            (HttpServerRequestInternal) request,
            gzip,
            !request.path().startsWith(STREAMING_PREFIX),
            maxMessageBytes,
            request.path().startsWith(HEALTH_PREFIX) ? HealthCheckRequest.parser() : null));
  }

  /** Ends a call that has sent nothing yet with its status in the headers (trailers-only). */
  static void trailersOnly(HttpServerResponse response, GrpcStatus status, String message) {
    if (response.headWritten() || response.ended() || response.closed()) {
      return;
    }
    response
        .setStatusCode(200)
        .putHeader("content-type", "application/grpc")
        .putHeader("grpc-status", String.valueOf(status.code))
        .putHeader("grpc-message", GrpcMessages.encode(message))
        .end();
  }

  /** The request as the gRPC server sees it: identity frames, checked, no grpc-encoding. */
  private static final class Guarded extends HttpServerRequestWrapper {

    private final boolean gzip;
    private final boolean singleRequest;
    private final int max;
    private final Parser<?> parser;
    private final MultiMap headers;
    private Buffer pending = Buffer.buffer();
    private Buffer held;
    private int messages;
    private boolean failed;
    private Handler<Buffer> data;
    private Handler<Void> end;

    /**
     * {@code parser}: of a service that is not ours (health), whose malformed request Vert.x would
     * answer with a stream reset; ours decode their messages themselves ({@link GrpcCalls#decode}).
     */
    Guarded(
        HttpServerRequestInternal delegate,
        boolean gzip,
        boolean singleRequest,
        int max,
        Parser<?> parser) {
      super(delegate);
      this.parser = parser;
      this.gzip = gzip;
      this.singleRequest = singleRequest;
      this.max = max;
      this.headers = MultiMap.caseInsensitiveMultiMap().addAll(delegate.headers());
      headers.remove("grpc-encoding");
    }

    @Override
    public MultiMap headers() {
      return headers;
    }

    @Override
    public String getHeader(String name) {
      return headers.get(name);
    }

    @Override
    public String getHeader(CharSequence name) {
      return headers.get(name);
    }

    @Override
    public HttpServerRequest handler(Handler<Buffer> handler) {
      data = handler;
      delegate.handler(handler == null ? null : this::received);
      return this;
    }

    @Override
    public HttpServerRequest endHandler(Handler<Void> handler) {
      end = handler;
      delegate.endHandler(handler == null ? null : v -> ended());
      return this;
    }

    private void received(Buffer chunk) {
      if (failed) {
        return;
      }
      pending.appendBuffer(chunk);
      while (!failed && pending.length() >= 5) {
        byte flag = pending.getByte(0);
        long length = pending.getUnsignedInt(1);
        if (flag != 0 && flag != 1) {
          fail(GrpcStatus.INTERNAL, "a message's compressed flag must be 0 or 1, got " + flag);
          return;
        }
        if (length > max) {
          fail(
              GrpcStatus.RESOURCE_EXHAUSTED,
              "a message of " + length + " bytes exceeds the limit of " + max + " bytes");
          return;
        }
        if (pending.length() < 5 + length) {
          return;
        }
        Buffer payload = pending.getBuffer(5, 5 + (int) length);
        pending = pending.getBuffer(5 + (int) length, pending.length());
        if (flag == 1) {
          if (!gzip) {
            fail(GrpcStatus.INTERNAL, "a compressed message arrived without grpc-encoding");
            return;
          }
          payload = inflate(payload);
          if (payload == null) {
            return;
          }
        }
        message(payload);
      }
    }

    private void message(Buffer payload) {
      Buffer frame = Buffer.buffer(5 + payload.length()).appendByte((byte) 0);
      frame.appendUnsignedInt(payload.length()).appendBuffer(payload);
      messages++;
      if (!singleRequest) {
        data.handle(frame);
      } else if (messages > 1) {
        fail(GrpcStatus.INVALID_ARGUMENT, "this method takes one request message, got more");
      } else {
        held = frame; // handed on with the end of the stream, once it is known to be the only one
      }
    }

    private void ended() {
      if (failed) {
        return;
      }
      if (pending.length() > 0) {
        fail(
            GrpcStatus.INTERNAL,
            "the request ended inside a message ("
                + pending.length()
                + " bytes of an incomplete frame)");
      } else if (singleRequest && held == null) {
        fail(GrpcStatus.INVALID_ARGUMENT, "this method takes one request message, got none");
      } else if (held != null && parser != null && !parses(held)) {
        fail(GrpcStatus.INVALID_ARGUMENT, "the request message is malformed");
      } else {
        if (held != null) {
          data.handle(held);
          held = null;
        }
        if (end != null) {
          end.handle(null);
        }
      }
    }

    private boolean parses(Buffer frame) {
      try {
        parser.parseFrom(frame.getBytes(5, frame.length()));
        return true;
      } catch (InvalidProtocolBufferException e) {
        return false;
      }
    }

    /** The inflated payload, or null after failing the call (too large or not gzip). */
    private Buffer inflate(Buffer compressed) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[8192];
      try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed.getBytes()))) {
        int n;
        while ((n = in.read(chunk)) > 0) {
          if (out.size() + n > max) {
            fail(
                GrpcStatus.RESOURCE_EXHAUSTED,
                "a message inflates to more than the limit of " + max + " bytes");
            return null;
          }
          out.write(chunk, 0, n);
        }
      } catch (IOException e) {
        fail(GrpcStatus.INTERNAL, "a message could not be inflated as gzip: " + e.getMessage());
        return null;
      }
      return Buffer.buffer(out.toByteArray());
    }

    private void fail(GrpcStatus status, String message) {
      failed = true;
      pending = Buffer.buffer();
      held = null;
      HttpServerResponse response = delegate.response();
      if (response.headWritten()) {
        if (!response.ended() && !response.closed()) {
          response.trailers().set("grpc-status", String.valueOf(status.code));
          response.trailers().set("grpc-message", GrpcMessages.encode(message));
          response.end();
        }
      } else {
        trailersOnly(response, status, message);
      }
    }
  }
}
