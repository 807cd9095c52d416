package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkMeterTest {

  @Test
  void busyTicksLeaveOutIdleIOWaitAndSteal() {
    //                        user nice system idle iowait irq softirq steal guest guest_nice
    double[] t = WorkMeter.machineTicks("cpu  100 2 30 500 40 3 5 20 7 0");

    assertThat(t[0]).as("stolen").isEqualTo(20);
    assertThat(t[1]).as("busy: user, nice, system, irq, softirq").isEqualTo(140);
    assertThat(t[2]).as("all: user .. steal, guest already in user").isEqualTo(700);
  }

  @Test
  void aKernelWithoutAStealColumnReportsNoneStolen() {
    double[] t = WorkMeter.machineTicks("cpu 10 0 5 85 0 0 0");

    assertThat(t).containsExactly(0, 15, 100);
  }

  @Test
  void aPeriodsFiguresComeFromTheDifferenceOfTwoSnapshots() {
    WorkMeter.Snapshot from = new WorkMeter.Snapshot(1, 0.5, 2, 0, 0, 10, 1000, 1, 5, 1_000, 2_000);
    // 2 s of a 2-core machine: 400 ticks, of which 300 busy and 8 stolen
    WorkMeter.Snapshot to = new WorkMeter.Snapshot(2, 0.75, 3, 0, 0, 20, 3000, 3, 13, 1_300, 2_400);

    WorkMeter.Snapshot d = to.minus(from);

    assertThat(d.busyPercent()).isEqualTo(75.0);
    assertThat(d.stealPercent()).isEqualTo(2.0);
    // 300 ticks = 3 s of CPU over 6,000 commands
    assertThat(d.machineMicrosPer(6_000)).isCloseTo(500.0, within(1e-9));
    assertThat(d.walBytes()).isEqualTo(2000);
    assertThat(d.serviceJitCpu()).isEqualTo(0.25);
  }

  @Test
  void withoutMachineCountersThePercentagesAreUnknown() {
    WorkMeter.Snapshot none = new WorkMeter.Snapshot(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    assertThat(none.busyPercent()).isNaN();
    assertThat(none.stealPercent()).isNaN();
  }

  @Test
  void aProcessNameWithSpacesAndParenthesesDoesNotShiftTheFields(@TempDir Path dir)
      throws Exception {
    Path stat = dir.resolve("stat");
    // pid (comm) state ppid ... : after the name, field 11 is utime, 12 stime, 13 cutime, 14 cstime
    Files.writeString(
        stat, "42 (C2 Compiler) (x)) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 12 0\n");

    assertThat(WorkMeter.statSeconds(stat, 11, Double.NaN)).isEqualTo(3.0);
    assertThat(WorkMeter.statSeconds(stat, 13, Double.NaN)).isEqualTo(0.1);
  }

  @Test
  void anUnreadableStatFileGivesTheFallback(@TempDir Path dir) {
    assertThat(WorkMeter.statSeconds(dir.resolve("gone"), 11, -1)).isEqualTo(-1);
  }

  @Test
  void thisMachinesCountersAreReadable() {
    double[] t = WorkMeter.machineTicks();

    assertThat(t[2]).as("all ticks since boot").isPositive();
    assertThat(t[1]).isBetween(0.0, t[2]);
  }
}
