package io.slotkeeper.scheduler.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.scheduler.schedule.DstPolicy.Gap;
import io.slotkeeper.scheduler.schedule.DstPolicy.Overlap;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A daily job at the missing hour and at the repeated hour of each zone's 2026 transitions, under
 * every policy: the slots of the day before, the day and the day after. docs/scheduling.md shows
 * the same table.
 */
class CronScheduleDstTest {

  static Stream<Arguments> gapDays() {
    return Stream.of(
        // zone, daily local time, transition day, gap policy, expected slots (UTC) on day-1..day+1
        gap("America/New_York", "02:30", "2026-03-08", Gap.SKIP, "03-07T07:30", "03-09T06:30"),
        gap(
            "America/New_York",
            "02:30",
            "2026-03-08",
            Gap.SHIFT_FORWARD,
            "03-07T07:30",
            "03-08T07:00",
            "03-09T06:30"),
        gap("Europe/Berlin", "02:30", "2026-03-29", Gap.SKIP, "03-28T01:30", "03-30T00:30"),
        gap(
            "Europe/Berlin",
            "02:30",
            "2026-03-29",
            Gap.SHIFT_FORWARD,
            "03-28T01:30",
            "03-29T01:00",
            "03-30T00:30"),
        gap("Australia/Sydney", "02:30", "2026-10-04", Gap.SKIP, "10-02T16:30", "10-04T15:30"),
        gap(
            "Australia/Sydney",
            "02:30",
            "2026-10-04",
            Gap.SHIFT_FORWARD,
            "10-02T16:30",
            "10-03T16:00",
            "10-04T15:30"),
        gap(
            "Asia/Shanghai",
            "02:30",
            "2026-03-08",
            Gap.SKIP,
            "03-06T18:30",
            "03-07T18:30",
            "03-08T18:30"),
        gap(
            "Asia/Shanghai",
            "02:30",
            "2026-03-08",
            Gap.SHIFT_FORWARD,
            "03-06T18:30",
            "03-07T18:30",
            "03-08T18:30"));
  }

  static Stream<Arguments> overlapDays() {
    return Stream.of(
        overlap(
            "America/New_York",
            "01:30",
            "2026-11-01",
            Overlap.FIRST_OCCURRENCE,
            "10-31T05:30",
            "11-01T05:30",
            "11-02T06:30"),
        overlap(
            "America/New_York",
            "01:30",
            "2026-11-01",
            Overlap.LAST_OCCURRENCE,
            "10-31T05:30",
            "11-01T06:30",
            "11-02T06:30"),
        overlap(
            "America/New_York",
            "01:30",
            "2026-11-01",
            Overlap.BOTH,
            "10-31T05:30",
            "11-01T05:30",
            "11-01T06:30",
            "11-02T06:30"),
        overlap(
            "Europe/Berlin",
            "02:30",
            "2026-10-25",
            Overlap.FIRST_OCCURRENCE,
            "10-24T00:30",
            "10-25T00:30",
            "10-26T01:30"),
        overlap(
            "Europe/Berlin",
            "02:30",
            "2026-10-25",
            Overlap.LAST_OCCURRENCE,
            "10-24T00:30",
            "10-25T01:30",
            "10-26T01:30"),
        overlap(
            "Europe/Berlin",
            "02:30",
            "2026-10-25",
            Overlap.BOTH,
            "10-24T00:30",
            "10-25T00:30",
            "10-25T01:30",
            "10-26T01:30"),
        overlap(
            "Australia/Sydney",
            "02:30",
            "2026-04-05",
            Overlap.FIRST_OCCURRENCE,
            "04-03T15:30",
            "04-04T15:30",
            "04-05T16:30"),
        overlap(
            "Australia/Sydney",
            "02:30",
            "2026-04-05",
            Overlap.LAST_OCCURRENCE,
            "04-03T15:30",
            "04-04T16:30",
            "04-05T16:30"),
        overlap(
            "Australia/Sydney",
            "02:30",
            "2026-04-05",
            Overlap.BOTH,
            "04-03T15:30",
            "04-04T15:30",
            "04-04T16:30",
            "04-05T16:30"),
        overlap(
            "Asia/Shanghai",
            "02:30",
            "2026-11-01",
            Overlap.BOTH,
            "10-30T18:30",
            "10-31T18:30",
            "11-01T18:30"),
        overlap(
            "Asia/Shanghai",
            "02:30",
            "2026-11-01",
            Overlap.LAST_OCCURRENCE,
            "10-30T18:30",
            "10-31T18:30",
            "11-01T18:30"));
  }

  @ParameterizedTest(name = "{0} {1} on {2}, gap {3}")
  @MethodSource("gapDays")
  void dailyJobAtTheMissingHour(
      String zone, String time, String day, Gap gap, List<Instant> expected) {
    assertThreeDays(zone, time, day, new DstPolicy(gap, Overlap.FIRST_OCCURRENCE), expected);
  }

  @ParameterizedTest(name = "{0} {1} on {2}, overlap {3}")
  @MethodSource("overlapDays")
  void dailyJobAtTheRepeatedHour(
      String zone, String time, String day, Overlap overlap, List<Instant> expected) {
    assertThreeDays(zone, time, day, new DstPolicy(Gap.SHIFT_FORWARD, overlap), expected);
  }

  /** The gap policy never matters on an overlap day and vice versa. */
  @ParameterizedTest(name = "{0} {1} on {2}, gap {3}")
  @MethodSource("gapDays")
  void overlapPolicyDoesNotChangeAGapDay(
      String zone, String time, String day, Gap gap, List<Instant> expected) {
    for (Overlap overlap : Overlap.values()) {
      assertThreeDays(zone, time, day, new DstPolicy(gap, overlap), expected);
    }
  }

  private static void assertThreeDays(
      String zone, String time, String day, DstPolicy policy, List<Instant> expected) {
    ZoneId z = ZoneId.of(zone);
    LocalTime at = LocalTime.parse(time);
    CronSchedule schedule =
        new CronSchedule("0 " + at.getMinute() + " " + at.getHour() + " * * *", z, policy);
    LocalDate d = LocalDate.parse(day);
    Instant from = ZonedDateTime.of(d.minusDays(1), LocalTime.MIDNIGHT, z).toInstant();
    Instant to = ZonedDateTime.of(d.plusDays(2), LocalTime.MIDNIGHT, z).toInstant();
    assertThat(Slots.between(schedule, from, to, 10)).containsExactlyElementsOf(expected);
  }

  private static Arguments gap(String zone, String time, String day, Gap gap, String... utc) {
    return Arguments.of(zone, time, day, gap, instants(utc));
  }

  private static Arguments overlap(
      String zone, String time, String day, Overlap overlap, String... utc) {
    return Arguments.of(zone, time, day, overlap, instants(utc));
  }

  /** "MM-ddTHH:mm" in 2026, UTC. */
  private static List<Instant> instants(String... utc) {
    return Arrays.stream(utc)
        .map(s -> Instant.parse("2026-" + s + ":00Z"))
        .collect(Collectors.toList());
  }
}
