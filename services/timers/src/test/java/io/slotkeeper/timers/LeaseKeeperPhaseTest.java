package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The maintenance of many jobs started together is spread over the period, the same each start. */
class LeaseKeeperPhaseTest {

  @Test
  void phasesOfManyJobsAreSpreadOverThePeriodAndStable() {
    long period = 3_333;
    Set<Long> phases = new HashSet<>();
    long[] perSecondThird = new long[3];
    for (int i = 0; i < 200; i++) {
      String job = String.format("bench-tick-%03d", i);
      long phase = LeaseKeeper.phase(job, period);
      assertThat(phase).isBetween(1L, period);
      assertThat(LeaseKeeper.phase(job, period)).isEqualTo(phase);
      phases.add(phase);
      perSecondThird[(int) ((phase - 1) * 3 / period)]++;
    }
    // Not all in one instant: spread over (almost) as many instants as there are jobs, and over
    // the whole period rather than a corner of it.
    assertThat(phases).hasSizeGreaterThan(180);
    for (long n : perSecondThird) {
      assertThat(n).isBetween(30L, 110L);
    }
  }
}
