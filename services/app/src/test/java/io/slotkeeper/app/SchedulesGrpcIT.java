package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.app.GrpcTestClient.Reply;
import io.slotkeeper.grpc.v1.ChangeScheduleRequest;
import io.slotkeeper.grpc.v1.CreateScheduleRequest;
import io.slotkeeper.grpc.v1.GetScheduleRequest;
import io.slotkeeper.grpc.v1.ScheduleAnswer;
import io.slotkeeper.grpc.v1.ScheduleDefinition;
import io.slotkeeper.grpc.v1.ScheduleDetail;
import io.slotkeeper.grpc.v1.ScheduleServiceGrpcClient;
import io.slotkeeper.grpc.v1.ScheduleStateRequest;
import io.slotkeeper.grpc.v1.ScheduleTiming;
import io.vertx.grpc.common.GrpcStatus;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The schedules over gRPC: the same operations, keys and versions as over HTTP. */
class SchedulesGrpcIT {

  static AppHarness h;
  static GrpcTestClient grpc;

  @BeforeAll
  static void start() {
    h = new AppHarness("schedules_grpc", Map.of());
    grpc = new GrpcTestClient(h.app.grpcPort());
  }

  @AfterAll
  static void stop() {
    grpc.close();
    h.close();
  }

  static ScheduleDefinition every(String name, String interval) {
    return ScheduleDefinition.newBuilder()
        .setName(name)
        .setSchedule(ScheduleTiming.newBuilder().setEvery(interval))
        .setHandler("noop")
        .build();
  }

  static long events(String name) {
    return h.count(
        "SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier = 'schedule:"
            + name
            + "'");
  }

  static <T> T ok(Reply<T> reply) {
    assertThat(reply.status()).as(reply.message()).isEqualTo(GrpcStatus.OK);
    return reply.body();
  }

  static ScheduleStateRequest state(String key, String name, long ifMatch) {
    return ScheduleStateRequest.newBuilder()
        .setIdempotencyKey(key)
        .setName(name)
        .setIfMatch(ifMatch)
        .build();
  }

  @Test
  void createChangePauseResumeDeleteWithReplaysAndVersions() {
    CreateScheduleRequest create =
        CreateScheduleRequest.newBuilder()
            .setIdempotencyKey("g-c-1")
            .setDefinition(every("g-life", "PT1M"))
            .build();
    ScheduleAnswer created =
        ok(grpc.call(ScheduleServiceGrpcClient.CreateSchedule, create, AppHarness.OPERATOR));
    assertThat(created.getVersion()).isEqualTo(1);
    assertThat(created.getDefinition().getEnabled()).isTrue();
    assertThat(ok(grpc.call(ScheduleServiceGrpcClient.CreateSchedule, create, AppHarness.OPERATOR)))
        .isEqualTo(created);
    assertThat(events("g-life")).isEqualTo(1);
    assertThat(
            grpc.call(ScheduleServiceGrpcClient.CreateSchedule, create, AppHarness.CLIENT).status())
        .isEqualTo(GrpcStatus.PERMISSION_DENIED);

    ChangeScheduleRequest.Builder change =
        ChangeScheduleRequest.newBuilder().setName("g-life").setDefinition(every("g-life", "PT5M"));
    Reply<ScheduleAnswer> noVersion =
        grpc.call(
            ScheduleServiceGrpcClient.ChangeSchedule,
            change.setIdempotencyKey("g-u-0").build(),
            AppHarness.OPERATOR);
    assertThat(noVersion.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    ChangeScheduleRequest changeV1 = change.setIdempotencyKey("g-u-1").setIfMatch(1).build();
    ScheduleAnswer changed =
        ok(grpc.call(ScheduleServiceGrpcClient.ChangeSchedule, changeV1, AppHarness.OPERATOR));
    assertThat(changed.getVersion()).isEqualTo(2);
    assertThat(
            ok(grpc.call(ScheduleServiceGrpcClient.ChangeSchedule, changeV1, AppHarness.OPERATOR)))
        .isEqualTo(changed);
    Reply<ScheduleAnswer> stale =
        grpc.call(
            ScheduleServiceGrpcClient.ChangeSchedule,
            change.setIdempotencyKey("g-u-2").setIfMatch(1).build(),
            AppHarness.OPERATOR);
    assertThat(stale.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    assertThat(stale.message()).contains("version 2");

    // A dry run compares with the read table, a projection behind the write just answered.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> h.count("SELECT version FROM schedules WHERE name = 'g-life'") == 2);
    ScheduleAnswer dry =
        ok(
            grpc.call(
                ScheduleServiceGrpcClient.ChangeSchedule,
                change.setIdempotencyKey("g-u-3").setDryRun(true).setHours(1).build(),
                AppHarness.OPERATOR));
    assertThat(dry.getDryRun()).isTrue();
    assertThat(dry.getCurrentCount()).isEqualTo(12);
    assertThat(dry.getProposedCount()).isEqualTo(12);
    assertThat(events("g-life")).isEqualTo(2);

    ScheduleAnswer paused =
        ok(
            grpc.call(
                ScheduleServiceGrpcClient.PauseSchedule,
                state("g-p-1", "g-life", 2),
                AppHarness.OPERATOR));
    assertThat(paused.getState()).isEqualTo("PAUSED");
    assertThat(
            grpc.call(
                    ScheduleServiceGrpcClient.ResumeSchedule,
                    state("g-r-0", "g-life", 2),
                    AppHarness.OPERATOR)
                .status())
        .isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    ScheduleAnswer resumed =
        ok(
            grpc.call(
                ScheduleServiceGrpcClient.ResumeSchedule,
                state("g-r-1", "g-life", 3),
                AppHarness.OPERATOR));
    assertThat(resumed.getState()).isEqualTo("ACTIVE");
    ScheduleAnswer deleted =
        ok(
            grpc.call(
                ScheduleServiceGrpcClient.DeleteSchedule,
                state("g-d-1", "g-life", 4),
                AppHarness.OPERATOR));
    assertThat(deleted.getState()).isEqualTo("DELETED");
    assertThat(
            ok(
                grpc.call(
                    ScheduleServiceGrpcClient.DeleteSchedule,
                    state("g-d-1", "g-life", 4),
                    AppHarness.OPERATOR)))
        .isEqualTo(deleted);
    assertThat(events("g-life")).isEqualTo(5);
    assertThat(
            grpc.call(
                    ScheduleServiceGrpcClient.PauseSchedule,
                    state("g-p-9", "g-life", 0),
                    AppHarness.OPERATOR)
                .status())
        .isEqualTo(GrpcStatus.NOT_FOUND);
  }

  @Test
  void readsWorkForClientsAndBadFieldsAreNamed() {
    ok(
        grpc.call(
            ScheduleServiceGrpcClient.CreateSchedule,
            CreateScheduleRequest.newBuilder()
                .setIdempotencyKey("g-c-read")
                .setDefinition(every("g-read", "PT1H"))
                .build(),
            AppHarness.OPERATOR));
    Awaitility.await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                grpc.call(
                            ScheduleServiceGrpcClient.GetSchedule,
                            GetScheduleRequest.newBuilder().setName("g-read").build(),
                            AppHarness.CLIENT)
                        .status()
                    == GrpcStatus.OK);
    ScheduleDetail detail =
        ok(
            grpc.call(
                ScheduleServiceGrpcClient.GetSchedule,
                GetScheduleRequest.newBuilder().setName("g-read").build(),
                AppHarness.CLIENT));
    assertThat(detail.getManagedBy()).isEqualTo("API");
    assertThat(detail.getNextSlotsCount()).isEqualTo(3);

    Reply<ScheduleAnswer> bad =
        grpc.call(
            ScheduleServiceGrpcClient.CreateSchedule,
            CreateScheduleRequest.newBuilder()
                .setIdempotencyKey("g-bad")
                .setDefinition(
                    ScheduleDefinition.newBuilder()
                        .setName("g-bad")
                        .setSchedule(ScheduleTiming.newBuilder().setCron("0 * * * *"))
                        .setZone("Mars/Base")
                        .setHandler("nope"))
                .build(),
            AppHarness.OPERATOR);
    assertThat(bad.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(bad.message()).contains("schedule.cron").contains("zone").contains("handler");
    assertThat(events("g-bad")).isZero();
  }
}
