package io.slotkeeper.scheduler.schedule.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobSpecsTargetTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JobSpecs.Rules API =
      new JobSpecs.Rules(
          Set.of("noop", "http"),
          Duration.ofDays(7),
          Duration.ofSeconds(1),
          url ->
              url.getHost().equals("blocked.example")
                  ? Optional.of("refused by the guard")
                  : Optional.empty());

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text.replace('\'', '"'));
  }

  private static Map<String, String> errorsOf(String target) throws Exception {
    Map<String, String> errors = new LinkedHashMap<>();
    JobSpecs.read(
        json("{'name':'t','schedule':{'every':'PT1M'},'target':" + target + "}"), "", API, errors);
    return errors;
  }

  @Test
  void aTargetMakesAnHttpJobWithItsDefaults() throws Exception {
    Map<String, String> errors = new LinkedHashMap<>();
    JobDefinition job =
        JobSpecs.read(
                json(
                    "{'name':'t','schedule':{'every':'PT1M'},'target':{'url':'https://a.example/x?y=1',"
                        + "'headers':{'X-Team':'blue'},'body':'{{schedule}} {{slot}}','secretRef':'TEAM_A'}}"),
                "",
                API,
                errors)
            .orElseThrow(() -> new AssertionError(errors));
    assertThat(job.handler()).isEqualTo("http");
    HttpTarget t = job.target();
    assertThat(t.method()).isEqualTo("POST");
    assertThat(t.timeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(t.hostPort()).isEqualTo("a.example:443");
    assertThat(t.secretVariable()).isEqualTo("SLOTKEEPER_SECRET_TEAM_A");
    // Stored and read back, the same job.
    assertThat(JobSpecs.jobOf(JobSpecs.definitionOf(job))).isEqualTo(job);
  }

  @Test
  void everyBadTargetFieldIsNamed() throws Exception {
    Map<String, String> errors =
        errorsOf(
            "{'type':'grpc','url':'ftp://a.example','method':'TRACE','timeout':'PT61S',"
                + "'headers':{'Slotkeeper-Attempt':'1','Host':'x','bad header':'v','X-Ok':'a\\nb'},"
                + "'body':'{{nope}}','secretRef':'lower case','maxPerSecond':0}");
    assertThat(errors)
        .containsOnlyKeys(
            "target.type",
            "target.url",
            "target.method",
            "target.timeout",
            "target.headers.Slotkeeper-Attempt",
            "target.headers.Host",
            "target.headers.bad header",
            "target.headers.X-Ok",
            "target.body",
            "target.secretRef",
            "target.maxPerSecond");
    assertThat(errors.get("target.url")).contains("http or https");
  }

  @Test
  void theGuardsRefusalNamesTheUrl() throws Exception {
    assertThat(errorsOf("{'url':'http://blocked.example/'}"))
        .containsExactly(Map.entry("target.url", "refused by the guard"));
  }

  @Test
  void anInlineSecretIsRefusedSoNoSecretIsStored() throws Exception {
    Map<String, String> errors = errorsOf("{'url':'http://a.example/','secret':'whsec_x'}");
    assertThat(errors).containsOnlyKeys("target.secret");
    assertThat(errors.get("target.secret")).contains("SLOTKEEPER_SECRET_").doesNotContain("whsec");
  }

  @Test
  void aTargetWithAnotherHandlerOrHttpWithoutTargetIsRefused() throws Exception {
    Map<String, String> errors = new LinkedHashMap<>();
    JobSpecs.read(
        json(
            "{'name':'t','schedule':{'every':'PT1M'},'handler':'noop','target':{'url':'http://a.example'}}"),
        "",
        API,
        errors);
    assertThat(errors).containsOnlyKeys("handler");
    errors.clear();
    JobSpecs.read(
        json("{'name':'t','schedule':{'every':'PT1M'},'handler':'http'}"), "", API, errors);
    assertThat(errors).containsOnlyKeys("target");
  }
}
