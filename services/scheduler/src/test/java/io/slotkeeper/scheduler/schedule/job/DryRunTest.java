package io.slotkeeper.scheduler.schedule.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DryRunTest {

  private static JobDefinition job(String json) throws Exception {
    return JobSpecs.read(
            new ObjectMapper().readTree(json.replace('\'', '"')),
            "",
            JobSpecs.Rules.FILE,
            new LinkedHashMap<>())
        .orElseThrow();
  }

  @Test
  void aDailyCronInTheBerlinSpringGapIsSkippedOrShiftedAsItsPolicySays() throws Exception {
    JobDefinition current =
        job(
            "{'name':'r','schedule':{'cron':'0 30 2 * * *'},'zone':'Europe/Berlin',"
                + "'dst':{'gap':'SHIFT_FORWARD'}}");
    JobDefinition proposed =
        job(
            "{'name':'r','schedule':{'cron':'0 30 2 * * *'},'zone':'Europe/Berlin',"
                + "'dst':{'gap':'SKIP'}}");
    // From Saturday 2026-03-28 00:00 UTC, 48 hours: the clocks go forward on Sunday at 01:00 UTC.
    DryRun.Result r =
        DryRun.compare(
            Optional.of(current),
            proposed,
            Instant.parse("2026-03-28T00:00:00Z"),
            Duration.ofHours(48));
    assertThat(r.current())
        .containsExactly(
            Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-29T01:00:00Z"));
    assertThat(r.proposed()).containsExactly(Instant.parse("2026-03-28T01:30:00Z"));
    assertThat(r.clockChanges()).hasSize(2);
    DryRun.ClockChange proposedChange = r.clockChanges().get(1);
    assertThat(proposedChange.definition()).isEqualTo("proposed");
    assertThat(proposedChange.kind()).isEqualTo("GAP");
    assertThat(proposedChange.at()).isEqualTo(Instant.parse("2026-03-29T01:00:00Z"));
    assertThat(proposedChange.localFrom()).isEqualTo(LocalDateTime.parse("2026-03-29T02:00"));
    assertThat(proposedChange.localTo()).isEqualTo(LocalDateTime.parse("2026-03-29T03:00"));
    assertThat(proposedChange.policy()).isEqualTo("SKIP");
    assertThat(proposedChange.slots()).isEmpty();
    assertThat(r.clockChanges().get(0).slots())
        .containsExactly(Instant.parse("2026-03-29T01:00:00Z"));
  }

  @Test
  void aCreateHasNoCurrentSlotsAndAnIntervalNoClockChange() throws Exception {
    DryRun.Result r =
        DryRun.compare(
            Optional.empty(),
            job("{'name':'i','schedule':{'every':'PT6H'}}"),
            Instant.parse("2026-03-28T00:00:00Z"),
            Duration.ofHours(48));
    assertThat(r.current()).isEmpty();
    assertThat(r.proposed()).hasSize(8);
    assertThat(r.clockChanges()).isEmpty();
    assertThat(r.truncated()).isFalse();
  }
}
