package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ScheduleFleetBenchTest {

  @Test
  void theJobsFileIsOneTheServiceAcceptsAndSpreadsTheSchedulesOverTheMinute() {
    List<String> names = IntStream.range(0, 130).mapToObj(i -> "b1-s-" + i).toList();

    JobsFile file = JobsFile.parse(ScheduleFleetBench.jobsYaml(names), "schedules.yaml");

    assertThat(file.jobs()).hasSize(130);
    Instant minute = Instant.parse("2026-12-04T10:00:00Z");
    for (int i : new int[] {0, 1, 59, 60, 129}) {
      JobDefinition job = file.jobs().get(i);
      assertThat(job.name()).isEqualTo("b1-s-" + i);
      assertThat(job.handler()).isEqualTo("noop");
      Instant first = job.schedule().nextAfter(minute.minusMillis(1)).orElseThrow();
      assertThat(first).as(job.name()).isEqualTo(minute.plusSeconds(i % 60));
      assertThat(job.schedule().nextAfter(first)).contains(first.plusSeconds(60));
    }
  }

  @Test
  void aWindowIsWholeMinutesFromTheFirstMinuteAtOrAfterTheEarliestStart() {
    ScheduleFleetBench.Window w =
        ScheduleFleetBench.Window.startingAfter(Instant.parse("2026-12-04T10:00:00.001Z"), 5);
    assertThat(w.from()).isEqualTo(Instant.parse("2026-12-04T10:01:00Z"));
    assertThat(w.to()).isEqualTo(Instant.parse("2026-12-04T10:06:00Z"));
    assertThat(w.minutes()).isEqualTo(5);

    ScheduleFleetBench.Window exact =
        ScheduleFleetBench.Window.startingAfter(Instant.parse("2026-12-04T10:00:00Z"), 2);
    assertThat(exact.from()).isEqualTo(Instant.parse("2026-12-04T10:00:00Z"));
  }

  @Test
  void anEditWritesTheSameDefinitionWithAnotherParam() {
    JsonObject created = new JsonObject(ScheduleEdits.definition("b1-e-7", 7, 0, true));
    JsonObject edited = new JsonObject(ScheduleEdits.definition("b1-e-7", 7, 42, false));

    assertThat(created.getString("name")).isEqualTo("b1-e-7");
    assertThat(edited.containsKey("name")).isFalse();
    assertThat(edited.getJsonObject("schedule")).isEqualTo(created.getJsonObject("schedule"));
    assertThat(edited.getJsonObject("schedule").getString("cron")).isEqualTo("7 * * * * *");
    assertThat(edited.getString("handler")).isEqualTo("noop");
    assertThat(created.getJsonObject("params").getString("edit")).isEqualTo("0");
    assertThat(edited.getJsonObject("params").getString("edit")).isEqualTo("42");
  }

  @Test
  void theDefaultsAreTheIssuesAndQuickRunsAreSmall() {
    BenchSettings.ScheduleSettings full =
        BenchSettings.fromEnvironment(Map.of("BENCH_SERVICE_JVM_OPTIONS_FILE", "none")).schedules();
    assertThat(full.count()).isEqualTo(10_000);
    assertThat(full.minutes()).isEqualTo(5);
    assertThat(full.editsPerMinute()).isEqualTo(1_000);
    assertThat(full.leaseTtlSeconds()).isEqualTo(10);

    BenchSettings.ScheduleSettings quick =
        BenchSettings.fromEnvironment(
                Map.of(
                    "BENCH_QUICK",
                    "1",
                    "BENCH_SCHEDULES_MINUTES",
                    "1",
                    "BENCH_SERVICE_JVM_OPTIONS_FILE",
                    "none"))
            .schedules();
    assertThat(quick.count()).isEqualTo(300);
    assertThat(quick.minutes()).isEqualTo(1);
  }
}
