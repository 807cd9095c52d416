package io.slotkeeper.app;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.health.v1.HealthCheckRequest;
import io.vertx.grpc.health.v1.HealthCheckResponse;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A gRPC client of a running slotkeeper, using the generated method descriptors. */
final class GrpcTestClient implements AutoCloseable {

  /** One unary answer: the status, its message, the response (null on error), the headers. */
  record Reply<T>(GrpcStatus status, String message, T body, MultiMap headers) {}

  final Vertx vertx = Vertx.vertx();
  final GrpcClient client = GrpcClient.client(vertx);
  final SocketAddress address;

  GrpcTestClient(int port) {
    address = SocketAddress.inetSocketAddress(port, "127.0.0.1");
  }

  <Req, Resp> Reply<Resp> call(ServiceMethod<Resp, Req> method, Req request, String token) {
    return call(method, request, token, Map.of());
  }

  <Req, Resp> Reply<Resp> call(
      ServiceMethod<Resp, Req> method, Req request, String token, Map<String, String> metadata) {
    try {
      return client
          .request(address, method)
          .compose(
              req -> {
                headers(req, token, metadata);
                req.end(request);
                return req.response()
                    .compose(
                        resp ->
                            resp.last()
                                .map(
                                    m ->
                                        new Reply<>(
                                            resp.status(), resp.statusMessage(), m, resp.headers()))
                                .recover(
                                    e ->
                                        Future.succeededFuture(
                                            new Reply<>(
                                                resp.status(),
                                                resp.statusMessage(),
                                                null,
                                                resp.headers()))));
              })
          .await(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(method + " timed out", e);
    }
  }

  /** A server stream: the messages arrive in the returned queue until the request is cancelled. */
  <Req, Resp> Stream<Req, Resp> stream(ServiceMethod<Resp, Req> method, Req request, String token) {
    BlockingQueue<Resp> received = new LinkedBlockingQueue<>();
    Stream<Req, Resp> stream = new Stream<>(received);
    try {
      GrpcClientRequest<Req, Resp> req =
          client.request(address, method).await(20, TimeUnit.SECONDS);
      headers(req, token, Map.of());
      stream.request = req;
      // Handlers before the request goes out: a refusal (trailers only) can arrive and end the
      // response before a handler added afterwards from this thread would see its end.
      req.response()
          .onSuccess(
              resp -> {
                stream.status = resp.status();
                resp.handler(received::add);
                resp.endHandler(
                    v -> {
                      stream.status = resp.status();
                      stream.message = resp.statusMessage();
                      stream.ended = true;
                    });
                resp.exceptionHandler(e -> stream.ended = true);
              });
      req.end(request);
      return stream;
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(method + " timed out", e);
    }
  }

  static final class Stream<Req, Resp> {
    final BlockingQueue<Resp> received;
    volatile GrpcClientRequest<Req, Resp> request;
    volatile GrpcStatus status;
    volatile String message;
    volatile boolean ended;

    Stream(BlockingQueue<Resp> received) {
      this.received = received;
    }

    void cancel() {
      request.cancel();
    }
  }

  /** A method of the gRPC health checking protocol ({@code Check} or {@code Watch}). */
  static ServiceMethod<HealthCheckResponse, HealthCheckRequest> health(String method) {
    return ServiceMethod.client(
        ServiceName.create("grpc.health.v1", "Health"),
        method,
        GrpcMessageEncoder.encoder(),
        GrpcMessageDecoder.decoder(HealthCheckResponse.newBuilder()));
  }

  private static void headers(
      GrpcClientRequest<?, ?> req, String token, Map<String, String> metadata) {
    if (token != null) {
      req.headers().set("authorization", "Bearer " + token);
    }
    metadata.forEach((k, v) -> req.headers().set(k, v));
  }

  @Override
  public void close() {
    try {
      client.close().await(10, TimeUnit.SECONDS);
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // best effort
    }
  }
}
