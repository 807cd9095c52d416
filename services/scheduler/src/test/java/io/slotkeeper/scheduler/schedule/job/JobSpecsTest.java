package io.slotkeeper.scheduler.schedule.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slotkeeper.events.schedules.ScheduleDefinition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobSpecsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JobSpecs.Rules API =
      new JobSpecs.Rules(Set.of("noop", "daily-report"), Duration.ofDays(7), Duration.ofSeconds(1));

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  @Test
  void everyBadFieldIsNamedAtOnce() throws Exception {
    Map<String, String> errors = new LinkedHashMap<>();
    Optional<JobDefinition> job =
        JobSpecs.read(
            json(
                "{'name':'a','schedule':{'cron':'0 * * * *'},'zone':'Mars/Olympus',"
                    + "'catchUp':{'window':'P30D'},'handler':'nope','colour':'red'}"),
            "",
            API,
            errors);
    assertThat(job).isEmpty();
    assertThat(errors)
        .containsOnlyKeys("schedule.cron", "zone", "catchUp.window", "handler", "colour");
    assertThat(errors.get("catchUp.window")).contains("PT168H");
    assertThat(errors.get("handler")).contains("noop");
  }

  @Test
  void anIntervalUnderOneSecondIsRefusedByTheApiRules() throws Exception {
    Map<String, String> errors = new LinkedHashMap<>();
    JobSpecs.read(
        json("{'name':'a','schedule':{'every':'PT0.5S'},'handler':'noop'}"), "", API, errors);
    assertThat(errors).containsOnlyKeys("schedule.every");
  }

  @Test
  void theStoredDefinitionRunsTheSameJobAndCompareEqual() throws Exception {
    Map<String, String> errors = new LinkedHashMap<>();
    JobDefinition job =
        JobSpecs.read(
                json(
                    "{'name':'r','schedule':{'cron':'0 30 2 * * *'},'zone':'Europe/Berlin',"
                        + "'dst':{'gap':'SKIP'},'handler':'daily-report','params':{'k':'v'}}"),
                "",
                API,
                errors)
            .orElseThrow();
    ScheduleDefinition stored = JobSpecs.definitionOf(job);
    assertThat(JobSpecs.jobOf(stored)).isEqualTo(job);
    assertThat(JobSpecs.definitionOf(JobSpecs.jobOf(stored))).isEqualTo(stored);
    assertThat(stored.catchUp().window()).isEqualTo("PT10M");
  }
}
