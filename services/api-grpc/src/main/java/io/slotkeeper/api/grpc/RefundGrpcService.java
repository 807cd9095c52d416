package io.slotkeeper.api.grpc;

import static io.slotkeeper.api.grpc.GrpcCalls.putIfSet;

import io.slotkeeper.grpc.v1.ListRefundsResponse;
import io.slotkeeper.grpc.v1.Refund;
import io.slotkeeper.grpc.v1.RefundServiceGrpcService;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.refunds.RefundOperations;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/** {@code slotkeeper.v1.RefundService}: a thin adapter over {@link RefundOperations}. */
final class RefundGrpcService {

  private RefundGrpcService() {}

  static Service create(GrpcCalls calls, RefundOperations refunds) {
    ServiceBuilder b =
        Service.service(
            RefundServiceGrpcService.SERVICE_NAME, RefundServiceGrpcService.SERVICE_DESCRIPTOR);
    calls.command(
        b,
        RefundServiceGrpcService.RequestRefund,
        Role.CLIENT,
        (r, caller) ->
            refunds.request(
                caller.key(r.getIdempotencyKey()),
                r.getOrderId(),
                putIfSet(
                    new JsonObject().put("amountCents", r.getAmountCents()),
                    "reason",
                    r.getReason())),
        Refund::newBuilder);
    calls.query(
        b,
        RefundServiceGrpcService.GetRefund,
        Role.CLIENT,
        r -> refunds.get(r.getRefundId()),
        Refund::newBuilder);
    calls.query(
        b,
        RefundServiceGrpcService.ListRefunds,
        Role.CLIENT,
        r -> refunds.byOrder(r.getOrderId()),
        ListRefundsResponse::newBuilder);
    calls.command(
        b,
        RefundServiceGrpcService.IssueRefund,
        Role.OPERATOR,
        (r, caller) ->
            refunds.issue(caller.key(r.getIdempotencyKey()), r.getRefundId(), new JsonObject()),
        Refund::newBuilder);
    return b.build();
  }
}
