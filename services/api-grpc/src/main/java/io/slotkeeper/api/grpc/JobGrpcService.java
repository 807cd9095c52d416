package io.slotkeeper.api.grpc;

import static io.slotkeeper.api.grpc.GrpcCalls.putIfSet;

import io.slotkeeper.grpc.v1.BackfillJobResponse;
import io.slotkeeper.grpc.v1.Job;
import io.slotkeeper.grpc.v1.JobPauseState;
import io.slotkeeper.grpc.v1.JobServiceGrpcService;
import io.slotkeeper.grpc.v1.ListJobsResponse;
import io.slotkeeper.grpc.v1.ListRunsResponse;
import io.slotkeeper.grpc.v1.TriggerJobResponse;
import io.slotkeeper.operations.auth.Role;
import io.slotkeeper.operations.jobs.JobOperations;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.Service;
import io.vertx.grpc.server.ServiceBuilder;

/** {@code slotkeeper.v1.JobService} (operator role): a thin adapter over {@link JobOperations}. */
final class JobGrpcService {

  private JobGrpcService() {}

  static Service create(GrpcCalls calls, JobOperations jobs) {
    ServiceBuilder b =
        Service.service(
            JobServiceGrpcService.SERVICE_NAME, JobServiceGrpcService.SERVICE_DESCRIPTOR);
    calls.query(
        b,
        JobServiceGrpcService.ListJobs,
        Role.OPERATOR,
        r -> jobs.list(),
        ListJobsResponse::newBuilder);
    calls.query(
        b,
        JobServiceGrpcService.GetJob,
        Role.OPERATOR,
        r -> jobs.get(r.getName()),
        Job::newBuilder);
    calls.query(
        b,
        JobServiceGrpcService.ListRuns,
        Role.OPERATOR,
        r ->
            jobs.runs(
                r.getJob(),
                r.getFrom(),
                r.getTo(),
                r.getLimit() == 0 ? JobOperations.DEFAULT_RUNS_LIMIT : r.getLimit()),
        ListRunsResponse::newBuilder);
    calls.command(
        b,
        JobServiceGrpcService.PauseJob,
        Role.OPERATOR,
        (r, caller) ->
            jobs.pause(caller.key(r.getIdempotencyKey()), r.getJob(), true, new JsonObject()),
        JobPauseState::newBuilder);
    calls.command(
        b,
        JobServiceGrpcService.ResumeJob,
        Role.OPERATOR,
        (r, caller) ->
            jobs.pause(caller.key(r.getIdempotencyKey()), r.getJob(), false, new JsonObject()),
        JobPauseState::newBuilder);
    calls.command(
        b,
        JobServiceGrpcService.TriggerJob,
        Role.OPERATOR,
        (r, caller) ->
            jobs.trigger(
                caller.key(r.getIdempotencyKey()),
                r.getJob(),
                putIfSet(new JsonObject(), "slot", r.getSlot())),
        TriggerJobResponse::newBuilder);
    calls.command(
        b,
        JobServiceGrpcService.BackfillJob,
        Role.OPERATOR,
        (r, caller) -> {
          JsonObject body =
              putIfSet(putIfSet(new JsonObject(), "from", r.getFrom()), "to", r.getTo());
          if (r.getDryRun()) {
            body.put("dryRun", true);
          }
          return jobs.backfill(caller.key(r.getIdempotencyKey()), r.getJob(), body);
        },
        BackfillJobResponse::newBuilder);
    return b.build();
  }
}
