package io.slotkeeper.api.grpc;

import static io.slotkeeper.api.grpc.GrpcCalls.putIfSet;

import io.slotkeeper.grpc.v1.Order;
import io.slotkeeper.grpc.v1.OrderLine;
import io.slotkeeper.grpc.v1.OrderResult;
import io.slotkeeper.grpc.v1.OrderServiceGrpcService;
import io.slotkeeper.grpc.v1.PlaceOrderRequest;
import io.slotkeeper.grpc.v1.ProcessOrderResponse;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.orders.OrderOperations;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/** {@code slotkeeper.v1.OrderService}: a thin adapter over {@link OrderOperations}. */
final class OrderGrpcService {

  private OrderGrpcService() {}

  static Service create(GrpcCalls calls, OrderOperations orders) {
    ServiceBuilder b =
        Service.service(
            OrderServiceGrpcService.SERVICE_NAME, OrderServiceGrpcService.SERVICE_DESCRIPTOR);
    calls.command(
        b,
        OrderServiceGrpcService.PlaceOrder,
        Role.CLIENT,
        (r, caller) -> orders.place(caller.key(r.getIdempotencyKey()), body(r)),
        OrderResult::newBuilder);
    calls.query(
        b,
        OrderServiceGrpcService.GetOrder,
        Role.CLIENT,
        r -> orders.get(r.getOrderId()),
        Order::newBuilder);
    calls.command(
        b,
        OrderServiceGrpcService.CancelOrder,
        Role.CLIENT,
        (r, caller) ->
            orders.cancel(
                caller.key(r.getIdempotencyKey()),
                r.getOrderId(),
                putIfSet(new JsonObject(), "reason", r.getReason())),
        OrderResult::newBuilder);
    calls.command(
        b,
        OrderServiceGrpcService.ProcessOrder,
        Role.OPERATOR,
        (r, caller) ->
            orders.process(caller.key(r.getIdempotencyKey()), r.getOrderId(), new JsonObject()),
        ProcessOrderResponse::newBuilder);
    return b.build();
  }

  /** The JSON body {@code POST /v1/orders} would carry for the same request. */
  static JsonObject body(PlaceOrderRequest r) {
    JsonObject body = new JsonObject();
    putIfSet(body, "orderId", r.getOrderId());
    putIfSet(body, "customerId", r.getCustomerId());
    putIfSet(body, "currency", r.getCurrency());
    if (r.getItemsCount() > 0) {
      JsonArray items = new JsonArray();
      for (OrderLine line : r.getItemsList()) {
        items.add(
            putIfSet(new JsonObject(), "sku", line.getSku())
                .put("qty", line.getQty())
                .put("unitPriceCents", line.getUnitPriceCents()));
      }
      body.put("items", items);
    }
    return body;
  }
}
