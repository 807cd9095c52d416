package io.slotkeeper.api.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.slotkeeper.grpc.v1.ListSchedulesResponse;
import io.slotkeeper.grpc.v1.ScheduleAnswer;
import io.slotkeeper.grpc.v1.ScheduleDefinition;
import io.slotkeeper.grpc.v1.ScheduleDetail;
import io.slotkeeper.grpc.v1.ScheduleServiceGrpcService;
import io.slotkeeper.grpc.v1.ScheduleStateRequest;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.schedules.ScheduleOperations;
import io.slotkeeper.operations.schedules.ScheduleOperations.DryRunRequest;
import io.slotkeeper.operations.support.Ranges;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/**
 * {@code slotkeeper.v1.ScheduleService}: a thin adapter over {@link ScheduleOperations}; the
 * definition message is printed as the JSON body of the HTTP API, so both go through one validation
 * and share Idempotency-Keys.
 */
final class ScheduleGrpcService {

  private static final JsonFormat.Printer JSON = JsonFormat.printer();

  private ScheduleGrpcService() {}

  static Service create(GrpcCalls calls, ScheduleOperations schedules) {
    ServiceBuilder b =
        Service.service(
            ScheduleServiceGrpcService.SERVICE_NAME, ScheduleServiceGrpcService.SERVICE_DESCRIPTOR);
    calls.command(
        b,
        ScheduleServiceGrpcService.CreateSchedule,
        Role.OPERATOR,
        (r, caller) ->
            schedules.create(
                caller.key(r.getIdempotencyKey()),
                body(r.getDefinition()),
                dryRun(r.getDryRun(), r.getHours())),
        ScheduleAnswer::newBuilder);
    calls.command(
        b,
        ScheduleServiceGrpcService.ChangeSchedule,
        Role.OPERATOR,
        (r, caller) ->
            schedules.change(
                caller.key(r.getIdempotencyKey()),
                r.getName(),
                r.getIfMatch() == 0 ? null : Long.toString(r.getIfMatch()),
                body(r.getDefinition()),
                dryRun(r.getDryRun(), r.getHours())),
        ScheduleAnswer::newBuilder);
    calls.command(
        b,
        ScheduleServiceGrpcService.PauseSchedule,
        Role.OPERATOR,
        (r, caller) -> state(schedules, r, caller, true),
        ScheduleAnswer::newBuilder);
    calls.command(
        b,
        ScheduleServiceGrpcService.ResumeSchedule,
        Role.OPERATOR,
        (r, caller) -> state(schedules, r, caller, false),
        ScheduleAnswer::newBuilder);
    calls.command(
        b,
        ScheduleServiceGrpcService.DeleteSchedule,
        Role.OPERATOR,
        (r, caller) ->
            schedules.delete(caller.key(r.getIdempotencyKey()), r.getName(), ifMatch(r), reason(r)),
        ScheduleAnswer::newBuilder);
    calls.query(
        b,
        ScheduleServiceGrpcService.GetSchedule,
        Role.CLIENT,
        r -> schedules.get(r.getName()),
        ScheduleDetail::newBuilder);
    calls.query(
        b,
        ScheduleServiceGrpcService.ListSchedules,
        Role.CLIENT,
        r ->
            schedules.list(
                r.getState().isEmpty() ? null : r.getState(),
                r.getAfter().isEmpty() ? null : r.getAfter(),
                r.getLimit() == 0
                    ? ScheduleOperations.DEFAULT_LIMIT
                    : (int) Ranges.inRange("limit", r.getLimit(), 1, ScheduleOperations.MAX_LIMIT)),
        ListSchedulesResponse::newBuilder);
    return b.build();
  }

  private static Future<Outcome> state(
      ScheduleOperations schedules,
      ScheduleStateRequest r,
      GrpcCalls.Caller caller,
      boolean paused) {
    return schedules.pause(
        caller.key(r.getIdempotencyKey()), r.getName(), ifMatch(r), reason(r), paused);
  }

  private static String ifMatch(ScheduleStateRequest r) {
    return r.getIfMatch() == 0 ? null : Long.toString(r.getIfMatch());
  }

  private static JsonObject reason(ScheduleStateRequest r) {
    return GrpcCalls.putIfSet(new JsonObject(), "reason", r.getReason());
  }

  private static DryRunRequest dryRun(boolean dryRun, int hours) {
    if (!dryRun) {
      return DryRunRequest.NONE;
    }
    return new DryRunRequest(
        true,
        hours == 0
            ? ScheduleOperations.DEFAULT_DRY_RUN_HOURS
            : (int) Ranges.inRange("hours", hours, 1, ScheduleOperations.MAX_DRY_RUN_HOURS));
  }

  /** The definition as the HTTP API's JSON body (unset fields left out: their defaults apply). */
  private static JsonObject body(ScheduleDefinition definition) {
    try {
      return new JsonObject(JSON.print(definition));
    } catch (InvalidProtocolBufferException e) {
      throw ApiProblem.badRequest("the definition cannot be read: " + e.getMessage());
    }
  }
}
