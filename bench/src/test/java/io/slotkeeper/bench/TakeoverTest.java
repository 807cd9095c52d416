package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TakeoverTest {

  private static final Instant BASE = Instant.parse("2026-12-04T10:00:00Z");
  private static final Instant KILL = BASE.plusSeconds(30);

  @Test
  void takeoverIsTheLatestLateFirstFireAfterTheKill() {
    List<Takeover.FirstFire> firsts =
        List.of(
            // due 1 s after the kill, fired 12 s after it: taken over at +12 s
            fire(31, 42_000),
            // due 5 s after the kill, fired at +13.5 s
            fire(35, 43_500),
            // due 20 s after the kill, on time: taken over before it fell due
            fire(50, 50_010));

    assertThat(Takeover.seconds(KILL, firsts)).isEqualTo(13.5);
  }

  @Test
  void withoutALateSlotTheEarliestFirstFireBoundsTheTakeover() {
    List<Takeover.FirstFire> firsts = List.of(fire(50, 50_020), fire(45, 45_015));

    assertThat(Takeover.seconds(KILL, firsts)).isEqualTo(15.015);
  }

  @Test
  void withNoScheduleOfTheKilledInstanceTheTakeoverIsNotMeasured() {
    assertThat(Takeover.seconds(KILL, List.of())).isNaN();
  }

  /** The first slot after the kill, due {@code dueSecond} and fired {@code firedMs} after BASE. */
  private static Takeover.FirstFire fire(int dueSecond, long firedMs) {
    Instant nominal = BASE.plusSeconds(dueSecond);
    Instant fired = BASE.plusMillis(firedMs);
    return new Takeover.FirstFire(nominal, fired, fired.toEpochMilli() - nominal.toEpochMilli());
  }
}
