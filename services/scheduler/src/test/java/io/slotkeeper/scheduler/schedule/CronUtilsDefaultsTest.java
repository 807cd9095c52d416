package io.slotkeeper.scheduler.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/**
 * Pins what cron-utils does on its own across DST, which is why {@link CronSchedule} does not let
 * it see a zone: the outcome depends on the expression's shape, not on a policy. If an upgrade
 * changes this, the test says so; CronSchedule is unaffected either way.
 */
class CronUtilsDefaultsTest {

  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));

  @Test
  void dailyJobInTheGapIsSkipped() {
    ExecutionTime daily = ExecutionTime.forCron(PARSER.parse("0 30 2 * * *"));
    assertThat(daily.nextExecution(ZonedDateTime.of(2026, 3, 7, 12, 0, 0, 0, NEW_YORK)))
        .contains(ZonedDateTime.of(2026, 3, 9, 2, 30, 0, 0, NEW_YORK));
  }

  @Test
  void dailyJobInTheOverlapFiresOnceButASubHourlyOneFiresInBothPasses() {
    ExecutionTime daily = ExecutionTime.forCron(PARSER.parse("0 30 1 * * *"));
    ZonedDateTime first =
        daily.nextExecution(ZonedDateTime.of(2026, 10, 31, 12, 0, 0, 0, NEW_YORK)).get();
    assertThat(first.toInstant().toString()).isEqualTo("2026-11-01T05:30:00Z");
    assertThat(daily.nextExecution(first).get().toInstant().toString())
        .isEqualTo("2026-11-02T06:30:00Z");

    ExecutionTime quarterly = ExecutionTime.forCron(PARSER.parse("0 */15 * * * *"));
    ZonedDateTime t = ZonedDateTime.of(2026, 11, 1, 1, 45, 0, 0, NEW_YORK); // first pass (EDT)
    assertThat(quarterly.nextExecution(t).get().toInstant().toString())
        .isEqualTo("2026-11-01T06:00:00Z"); // 01:00 EST, the second pass
  }
}
