package io.slotkeeper.scheduler.schedule.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.DstPolicy;
import io.slotkeeper.scheduler.schedule.IntervalSchedule;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPolicy;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy;
import io.slotkeeper.scheduler.schedule.policy.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JobsFileTest {

  private static final String VALID_JOB = "  - name: a\n    schedule: { every: PT1S }\n";

  @Test
  void defaultFileShipsTheFiveJobs() {
    JobsFile file = JobsFile.loadDefault();
    assertThat(file.source()).isEqualTo("classpath:slotkeeper-jobs.yaml");
    Map<String, JobDefinition> jobs =
        file.jobs().stream().collect(Collectors.toMap(JobDefinition::name, j -> j));
    assertThat(file.jobs())
        .extracting(JobDefinition::name)
        .containsExactly(
            "order-fulfilment",
            "refund-settlement",
            "inventory-sync",
            "daily-report",
            "retention-cleanup");
    assertThat(jobs.get("order-fulfilment").schedule())
        .isEqualTo(IntervalSchedule.every(Duration.ofSeconds(10)));
    assertThat(jobs.get("order-fulfilment").params()).containsEntry("stuckAfter", "PT5M");
    assertThat(jobs.get("refund-settlement").schedule())
        .isEqualTo(IntervalSchedule.every(Duration.ofSeconds(30)));
    assertThat(jobs.get("inventory-sync").schedule())
        .isEqualTo(IntervalSchedule.every(Duration.ofMinutes(1)));
    assertThat(jobs.get("inventory-sync").overlapPolicy()).isEqualTo(OverlapPolicy.BUFFER_ONE);

    JobDefinition report = jobs.get("daily-report");
    assertThat(report.zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    assertThat(report.catchUpPolicy()).isEqualTo(CatchUpPolicy.ALL);
    // 00:05 in Shanghai is 16:05 UTC the day before.
    assertThat(report.schedule().nextAfter(Instant.parse("2026-05-01T00:00:00Z")))
        .contains(Instant.parse("2026-05-01T16:05:00Z"));

    JobDefinition cleanup = jobs.get("retention-cleanup");
    assertThat(cleanup.schedule().nextAfter(Instant.parse("2026-05-01T10:00:00Z")))
        .contains(Instant.parse("2026-05-01T11:00:00Z"));
    assertThat(file.jobs()).allMatch(JobDefinition::enabled);
  }

  @Test
  void aJobRunsTheHandlerOfItsNameUnlessItNamesAnother() {
    JobsFile file =
        JobsFile.parse(
            "jobs:\n"
                + VALID_JOB
                + "  - name: b\n    schedule: { every: PT1S }\n    handler: daily-report\n",
            "t");
    assertThat(file.jobs().get(0).handler()).isEqualTo("a");
    assertThat(file.jobs().get(1).handler()).isEqualTo("daily-report");
  }

  @Test
  void defaultsApplyToOmittedFields() {
    JobDefinition job = JobsFile.parse("jobs:\n" + VALID_JOB, "t").jobs().get(0);
    assertThat(job.zone()).isEqualTo(ZoneOffset.UTC);
    assertThat(job.enabled()).isTrue();
    assertThat(job.catchUpPolicy()).isEqualTo(CatchUpPolicy.LATEST);
    assertThat(job.catchUpWindow()).isEqualTo(Duration.ofMinutes(10));
    assertThat(job.overlapPolicy()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(job.dstPolicy()).isEqualTo(DstPolicy.DEFAULT);
    assertThat(job.retryPolicy()).isEqualTo(RetryPolicy.DEFAULT);
    assertThat(job.leaseTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(job.params()).isEmpty();
  }

  @Test
  void everyFieldOfTheDocumentedShapeIsRead() {
    String yaml =
        String.join(
            "\n",
            "jobs:",
            "  - name: order-fulfilment",
            "    schedule: { cron: \"*/10 * * * * ?\" }",
            "    zone: America/New_York",
            "    enabled: false",
            "    catchUp: { policy: ALL, window: PT1H }",
            "    overlap: BUFFER_ONE",
            "    dst: { gap: SKIP, overlap: BOTH }",
            "    retry: { maxAttempts: 5, initialBackoff: PT2S, multiplier: 3, maxBackoff: PT30S }",
            "    leaseTtl: PT20S",
            "    params: { stuckAfter: PT5M, batch: 50 }",
            "");
    JobDefinition job = JobsFile.parse(yaml, "t").jobs().get(0);
    DstPolicy dst = new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.BOTH);
    assertThat(job.schedule())
        .isEqualTo(new CronSchedule("*/10 * * * * ?", ZoneId.of("America/New_York"), dst));
    assertThat(job.enabled()).isFalse();
    assertThat(job.catchUpPolicy()).isEqualTo(CatchUpPolicy.ALL);
    assertThat(job.catchUpWindow()).isEqualTo(Duration.ofHours(1));
    assertThat(job.overlapPolicy()).isEqualTo(OverlapPolicy.BUFFER_ONE);
    assertThat(job.dstPolicy()).isEqualTo(dst);
    assertThat(job.retryPolicy())
        .isEqualTo(new RetryPolicy(5, Duration.ofSeconds(2), 3.0, Duration.ofSeconds(30)));
    assertThat(job.leaseTtl()).isEqualTo(Duration.ofSeconds(20));
    assertThat(job.params()).containsEntry("stuckAfter", "PT5M").containsEntry("batch", "50");
  }

  @Test
  void jsonIsAcceptedAndAnAnchorShiftsAnInterval() {
    String json =
        "{\"jobs\": [{\"name\": \"a\", \"schedule\": {\"every\": \"PT10S\","
            + " \"anchor\": \"2026-01-01T00:00:03Z\"}}]}";
    assertThat(JobsFile.parse(json, "t.json").jobs().get(0).schedule())
        .isEqualTo(
            new IntervalSchedule(Duration.ofSeconds(10), Instant.parse("2026-01-01T00:00:03Z")));
  }

  @Test
  void theEnvironmentVariableReplacesTheDefaultFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("jobs.yaml");
    Files.writeString(file, "jobs:\n" + VALID_JOB);
    JobsFile jobs = JobsFile.fromEnvironment(Map.of(JobsFile.ENV_VAR, file.toString()));
    assertThat(jobs.source()).isEqualTo(file.toString());
    assertThat(jobs.jobs()).extracting(JobDefinition::name).containsExactly("a");
    assertThat(JobsFile.fromEnvironment(Map.of()).jobs()).hasSize(5);
    assertThatThrownBy(() -> JobsFile.fromEnvironment(Map.of(JobsFile.ENV_VAR, dir + "/none.yaml")))
        .isInstanceOf(JobsFileException.class)
        .hasMessageStartingWith(dir + "/none.yaml: cannot read");
  }

  @Test
  void theDocumentedExampleMessage() {
    String yaml =
        "jobs:\n"
            + VALID_JOB
            + "  - name: b\n    schedule: { every: PT1S }\n"
            + "  - name: daily-report\n    schedule: { cron: \"0 5 0 * * ?\" }\n"
            + "    zone: Asia/Shangai\n";
    assertThatThrownBy(() -> JobsFile.parse(yaml, "jobs.yaml"))
        .isInstanceOf(JobsFileException.class)
        .hasMessage("jobs.yaml: jobs[2] (daily-report).zone: unknown time zone 'Asia/Shangai'")
        .extracting(e -> ((JobsFileException) e).field())
        .isEqualTo("jobs[2] (daily-report).zone");
  }

  /** Each line: the YAML of job 0 (after "name: a"), the expected message after the source. */
  static Stream<Arguments> invalidJobs() {
    return Stream.of(
            "schedule: { every: PT1S }\n    colour: red"
                + "| jobs[0] (a).colour: unknown field (known: catchUp, dst, enabled, handler, leaseTtl, name,"
                + " overlap, params, retry, schedule, target, zone)",
            "schedule: { every: PT1S, cron: '* * * * * *' }"
                + "| jobs[0] (a).schedule: give exactly one of cron, every",
            "zone: UTC| jobs[0] (a).schedule: missing (give cron or every)",
            "schedule: { cron: '0 * * * *' }"
                + "| jobs[0] (a).schedule.cron: invalid cron expression '0 * * * *'",
            "schedule: { cron: '0 0 25 * * *' }"
                + "| jobs[0] (a).schedule.cron: invalid cron expression '0 0 25 * * *'",
            "schedule: { every: 10s }"
                + "| jobs[0] (a).schedule.every: must be an ISO-8601 duration such as PT10S, got '10s'",
            "schedule: { every: PT0S }| jobs[0] (a).schedule.every: must be at least PT0.001S, got PT0S",
            "schedule: { every: PT1S, anchor: yesterday }"
                + "| jobs[0] (a).schedule.anchor: must be an ISO-8601 instant such as"
                + " 2026-01-01T00:00:00Z",
            "schedule: { every: PT1S, interval: PT1S }"
                + "| jobs[0] (a).schedule.interval: unknown field (known: anchor, cron, every)",
            "schedule: { every: PT1S }\n    catchUp: { window: -PT1M }"
                + "| jobs[0] (a).catchUp.window: must be at least PT0S, got PT-1M",
            "schedule: { every: PT1S }\n    catchUp: { policy: SOME }"
                + "| jobs[0] (a).catchUp.policy: unknown value 'SOME' (one of ALL, LATEST, NONE)",
            "schedule: { every: PT1S }\n    overlap: QUEUE"
                + "| jobs[0] (a).overlap: unknown value 'QUEUE' (one of SKIP, BUFFER_ONE, ALLOW)",
            "schedule: { every: PT1S }\n    dst: { gap: SHIFT }"
                + "| jobs[0] (a).dst.gap: unknown value 'SHIFT' (one of SKIP, SHIFT_FORWARD)",
            "schedule: { every: PT1S }\n    dst: { overlap: TWICE }"
                + "| jobs[0] (a).dst.overlap: unknown value 'TWICE' (one of FIRST_OCCURRENCE,"
                + " LAST_OCCURRENCE, BOTH)",
            "schedule: { every: PT1S }\n    retry: { maxAttempts: -1 }"
                + "| jobs[0] (a).retry.maxAttempts: must be between 1 and 100, got -1",
            "schedule: { every: PT1S }\n    retry: { maxAttempts: many }"
                + "| jobs[0] (a).retry.maxAttempts: must be a whole number, got \"many\"",
            "schedule: { every: PT1S }\n    retry: { multiplier: 0.5 }"
                + "| jobs[0] (a).retry.multiplier: must be between 1.0 and 100.0, got 0.5",
            "schedule: { every: PT1S }\n    leaseTtl: PT0S"
                + "| jobs[0] (a).leaseTtl: must be at least PT1S, got PT0S",
            "schedule: { every: PT1S }\n    enabled: maybe"
                + "| jobs[0] (a).enabled: must be true or false, got \"maybe\"",
            "schedule: { every: PT1S }\n    params: { nested: { a: 1 } }"
                + "| jobs[0] (a).params.nested: must be a single value")
        .map(JobsFileTest::split);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidJobs")
  void invalidJobsNameTheJobAndTheField(String rest, String expected) {
    String yaml = "jobs:\n  - name: a\n    " + rest + "\n";
    assertThatThrownBy(() -> JobsFile.parse(yaml, "jobs.yaml"))
        .isInstanceOf(JobsFileException.class)
        .hasMessageStartingWith("jobs.yaml: " + expected);
  }

  static Stream<Arguments> invalidFiles() {
    return Stream.of(
            "jobs:\n  - schedule: { every: PT1S }| jobs[0].name: missing",
            "jobs:\n  - name: ''\n    schedule: { every: PT1S }| jobs[0].name: missing",
            "jobs:\n  - name: a\n    schedule: { every: PT1S }\n  - name: a\n    schedule: { every:"
                + " PT2S }| jobs[1] (a).name: duplicate job name",
            "jobs:\n  - name: a\n    name: b| not valid YAML: Duplicate field 'name'",
            "jobz: []| jobz: unknown field (known: jobs)",
            "jobs: {}| jobs: must be a list of jobs",
            "jobs:\n  - just-a-string| jobs[0]: must be a mapping of job fields",
            " | jobs: missing (the file is empty)",
            "jobs: [ unclosed| not valid YAML")
        .map(JobsFileTest::split);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidFiles")
  void invalidFilesAreRefused(String yaml, String expected) {
    assertThatThrownBy(() -> JobsFile.parse(yaml, "jobs.yaml"))
        .isInstanceOf(JobsFileException.class)
        .hasMessageStartingWith("jobs.yaml: " + expected);
  }

  /** "yaml| expected message" into its two parts. */
  private static Arguments split(String testCase) {
    int bar = testCase.indexOf('|');
    return Arguments.of(testCase.substring(0, bar).trim(), testCase.substring(bar + 1).trim());
  }
}
