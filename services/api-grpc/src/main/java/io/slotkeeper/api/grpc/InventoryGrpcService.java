package io.slotkeeper.api.grpc;

import static io.slotkeeper.api.grpc.GrpcCalls.putIfSet;

import io.slotkeeper.grpc.v1.InventoryServiceGrpcService;
import io.slotkeeper.grpc.v1.StockLevel;
import io.slotkeeper.grpc.v1.StockLogResponse;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/** {@code slotkeeper.v1.InventoryService}: a thin adapter over {@link InventoryOperations}. */
final class InventoryGrpcService {

  private InventoryGrpcService() {}

  static Service create(GrpcCalls calls, InventoryOperations inventory) {
    ServiceBuilder b =
        Service.service(
            InventoryServiceGrpcService.SERVICE_NAME,
            InventoryServiceGrpcService.SERVICE_DESCRIPTOR);
    calls.command(
        b,
        InventoryServiceGrpcService.ReceiveStock,
        Role.CLIENT,
        (r, caller) ->
            inventory.receive(
                caller.key(r.getIdempotencyKey()),
                r.getSku(),
                putIfSet(new JsonObject().put("qty", r.getQty()), "reason", r.getReason())),
        StockLevel::newBuilder);
    calls.query(
        b,
        InventoryServiceGrpcService.GetStock,
        Role.CLIENT,
        r -> inventory.get(r.getSku()),
        StockLevel::newBuilder);
    calls.query(
        b,
        InventoryServiceGrpcService.GetStockLog,
        Role.CLIENT,
        r ->
            inventory.log(
                r.getSku(),
                r.getLimit() == 0 ? InventoryOperations.DEFAULT_LOG_LIMIT : r.getLimit()),
        StockLogResponse::newBuilder);
    return b.build();
  }
}
