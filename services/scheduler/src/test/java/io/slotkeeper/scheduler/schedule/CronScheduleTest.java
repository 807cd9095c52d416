package io.slotkeeper.scheduler.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.scheduler.schedule.DstPolicy.Gap;
import io.slotkeeper.scheduler.schedule.DstPolicy.Overlap;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CronScheduleTest {

  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  @Test
  void rememberedAnswersAreTheComputedAnswers() {
    // Schedules of one definition share their remembered answers; schedules of the same expression
    // in another zone or under another DST policy must not get them. Asked again and again, in and
    // out of order, across a DST gap and overlap, each answers what a computation gives.
    String expression = "7 */20 * * * *";
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    DstPolicy both = new DstPolicy(Gap.SHIFT_FORWARD, Overlap.BOTH);
    List<CronSchedule> schedules =
        List.of(
            new CronSchedule(expression, berlin, both),
            new CronSchedule(expression, berlin, both),
            new CronSchedule(expression, NEW_YORK, both),
            new CronSchedule(
                expression, berlin, new DstPolicy(Gap.SKIP, Overlap.FIRST_OCCURRENCE)));
    Random random = new Random(42);
    List<Instant> days =
        List.of(Instant.parse("2026-03-28T12:00:00Z"), Instant.parse("2026-10-24T12:00:00Z"));
    for (int i = 0; i < 4_000; i++) {
      CronSchedule asked = schedules.get(random.nextInt(schedules.size()));
      Instant t = days.get(i % 2).plusSeconds(random.nextInt(86_400));
      if (i % 3 == 0) {
        t = asked.nextAfter(t).orElseThrow(); // exactly on a slot: the next one is after it
      }
      assertThat(asked.nextAfter(t))
          .as("next after %s of %s", t, asked)
          .isEqualTo(new CronSchedule(expression, asked.zone(), asked.dst()).computedNextAfter(t));
    }
  }

  @Test
  void schedulesOfOneDefinitionShareTheirAnswersAndNoOtherDoes() {
    String expression = "13 */7 * * * *";
    DstPolicy both = new DstPolicy(Gap.SHIFT_FORWARD, Overlap.BOTH);
    CronSchedule asked = new CronSchedule(expression, NEW_YORK, both);
    CronSchedule same = new CronSchedule(expression, NEW_YORK, both);
    CronSchedule otherZone = new CronSchedule(expression, ZoneId.of("Europe/Berlin"), both);
    CronSchedule otherPolicy = new CronSchedule(expression, NEW_YORK, DstPolicy.DEFAULT);
    Instant t = Instant.parse("2026-06-01T10:00:00Z");
    assertThat(same.remembers(t)).isFalse();

    asked.nextAfter(t);

    assertThat(same.remembers(t)).isTrue();
    assertThat(otherZone.remembers(t)).isFalse();
    assertThat(otherPolicy.remembers(t)).isFalse();
  }

  @Test
  void secondsFieldAndQuartzStyleQuestionMarkAreAccepted() {
    CronSchedule every10s = new CronSchedule("*/10 * * * * ?", ZoneId.of("UTC"), DstPolicy.DEFAULT);
    assertThat(every10s.nextAfter(Instant.parse("2026-01-01T00:00:00Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
    assertThat(every10s.nextAfter(Instant.parse("2026-01-01T00:00:09.999Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
    assertThat(every10s.latestAtOrBefore(Instant.parse("2026-01-01T00:00:10Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
    assertThat(every10s.latestAtOrBefore(Instant.parse("2026-01-01T00:00:19.5Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
  }

  @Test
  void dayOfWeekFollowsSpringNumbering() {
    // Spring (and UNIX cron): 1 = Monday. 2026-01-05 is a Monday.
    CronSchedule mondays = new CronSchedule("0 0 12 ? * 1", ZoneId.of("UTC"), DstPolicy.DEFAULT);
    assertThat(mondays.nextAfter(Instant.parse("2026-01-01T00:00:00Z")))
        .contains(Instant.parse("2026-01-05T12:00:00Z"));
  }

  @Test
  void aDateThatNeverExistsHasNoSlot() {
    CronSchedule feb30 = new CronSchedule("0 0 0 30 2 ?", ZoneId.of("UTC"), DstPolicy.DEFAULT);
    assertThat(feb30.nextAfter(Instant.parse("2026-01-01T00:00:00Z"))).isEmpty();
    assertThat(feb30.latestAtOrBefore(Instant.parse("2026-01-01T00:00:00Z"))).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({"'0 * * * *'", "'61 * * * * *'", "'not a cron'", "''"})
  void invalidExpressionsAreRefused(String expression) {
    assertThatThrownBy(() -> new CronSchedule(expression, NEW_YORK, DstPolicy.DEFAULT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid cron expression");
  }

  @Test
  void subHourlyJobThroughTheRepeatedHour() {
    Instant from = Instant.parse("2026-11-01T04:50:00Z");
    Instant to = Instant.parse("2026-11-01T07:10:00Z");
    assertThat(quarterHours(Overlap.BOTH, from, to))
        .containsExactlyElementsOf(
            utc("05:00", "05:15", "05:30", "05:45", "06:00", "06:15", "06:30", "06:45", "07:00"));
    assertThat(quarterHours(Overlap.FIRST_OCCURRENCE, from, to))
        .containsExactlyElementsOf(utc("05:00", "05:15", "05:30", "05:45", "07:00"));
    assertThat(quarterHours(Overlap.LAST_OCCURRENCE, from, to))
        .containsExactlyElementsOf(utc("06:00", "06:15", "06:30", "06:45", "07:00"));
  }

  @Test
  void subHourlyJobThroughTheMissingHourFiresOnceAfterIt() {
    // 02:00-02:45 do not exist on 2026-03-08; shifted, they all land on 03:00, itself a slot.
    Instant from = Instant.parse("2026-03-08T06:50:00Z");
    Instant to = Instant.parse("2026-03-08T07:20:00Z");
    for (Gap gap : Gap.values()) {
      CronSchedule s =
          new CronSchedule("0 */15 * * * *", NEW_YORK, new DstPolicy(gap, Overlap.BOTH));
      assertThat(Slots.between(s, from, to, 100))
          .as(gap.name())
          .containsExactly(
              Instant.parse("2026-03-08T07:00:00Z"), Instant.parse("2026-03-08T07:15:00Z"));
    }
  }

  /**
   * nextAfter and latestAtOrBefore agree with the enumerated slots at random instants around DST
   * transitions, for every policy.
   */
  @Test
  void nextAndLatestAgreeWithEnumerationAroundTransitions() {
    Random random = new Random(42);
    String[][] cases = {
      {"America/New_York", "2026-11-01T03:00:00Z"},
      {"America/New_York", "2026-03-08T05:00:00Z"},
      {"Europe/Berlin", "2026-10-24T22:00:00Z"},
      {"Australia/Sydney", "2026-04-04T13:00:00Z"},
      {"Australia/Sydney", "2026-10-03T14:00:00Z"},
    };
    for (String[] c : cases) {
      for (Gap gap : Gap.values()) {
        for (Overlap overlap : Overlap.values()) {
          for (String cron : new String[] {"0 */20 * * * *", "0 30 1,2 * * *", "15 0 * * * *"}) {
            CronSchedule s = new CronSchedule(cron, ZoneId.of(c[0]), new DstPolicy(gap, overlap));
            Instant start = Instant.parse(c[1]);
            Instant end = start.plus(Duration.ofDays(2));
            List<Instant> slots = Slots.between(s, start, end, 1000);
            assertThat(slots).as("%s ascending", s).isSorted().doesNotHaveDuplicates();
            for (int i = 0; i < 100; i++) {
              Instant t = start.plusMillis((long) (random.nextDouble() * 5 * 3600_000L));
              Optional<Instant> expectedNext = slots.stream().filter(x -> x.isAfter(t)).findFirst();
              Optional<Instant> expectedLatest =
                  slots.stream().filter(x -> !x.isAfter(t)).reduce((a, b) -> b);
              assertThat(s.nextAfter(t)).as("%s next after %s", s, t).isEqualTo(expectedNext);
              if (expectedLatest.isPresent()) {
                assertThat(s.latestAtOrBefore(t))
                    .as("%s latest at or before %s", s, t)
                    .isEqualTo(expectedLatest);
              }
            }
          }
        }
      }
    }
  }

  private static List<Instant> quarterHours(Overlap overlap, Instant from, Instant to) {
    CronSchedule s =
        new CronSchedule("0 */15 * * * *", NEW_YORK, new DstPolicy(Gap.SHIFT_FORWARD, overlap));
    return Slots.between(s, from, to, 100);
  }

  private static List<Instant> utc(String... times) {
    return java.util.Arrays.stream(times)
        .map(t -> Instant.parse("2026-11-01T" + t + ":00Z"))
        .collect(java.util.stream.Collectors.toList());
  }
}
