package io.slotkeeper.api.grpc;

import io.vertx.core.Handler;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.reflection.ReflectionService;
import io.vertx.grpc.reflection.v1.ServerReflectionRequest;
import io.vertx.grpc.reflection.v1.ServerReflectionResponse;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * Server reflection under its older name too, {@code grpc.reflection.v1alpha}, which grpcurl and
 * many client libraries still ask first. Vert.x ships only the v1 service; the two protocols have
 * the same messages field for field, so Vert.x's own v1 handler answers both.
 */
final class ReflectionV1Alpha {

  static final ServiceMethod<ServerReflectionRequest, ServerReflectionResponse> METHOD =
      ServiceMethod.server(
          ServiceName.create("grpc.reflection.v1alpha", "ServerReflection"),
          "ServerReflectionInfo",
          GrpcMessageEncoder.encoder(),
          GrpcMessageDecoder.decoder(ServerReflectionRequest.newBuilder()));

  private ReflectionV1Alpha() {}

  /** Serves reflection v1 and v1alpha on {@code server}. */
  static void bind(GrpcServer server) {
    server.addService(ReflectionService.v1());
    // The v1 handler is not public: the v1 service binds it to a view of the server that registers
    // it under the v1alpha method instead. The handler lists the real server's services.
    GrpcServer v1alpha =
        (GrpcServer)
            Proxy.newProxyInstance(
                GrpcServer.class.getClassLoader(),
                new Class<?>[] {GrpcServer.class},
                (view, method, args) -> {
                  if (method.getName().equals("callHandler") && args != null && args.length == 2) {
                    server.callHandler(METHOD, handler(args[1]));
                    return view;
                  }
                  try {
                    return method.invoke(server, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    ReflectionService.v1().bind(v1alpha);
  }

  @SuppressWarnings("unchecked")
  private static Handler<GrpcServerRequest<ServerReflectionRequest, ServerReflectionResponse>>
      handler(Object handler) {
    return (Handler<GrpcServerRequest<ServerReflectionRequest, ServerReflectionResponse>>) handler;
  }
}
