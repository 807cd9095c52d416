package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.leases.InstanceRoster;
import org.junit.jupiter.api.Test;

/** A schedule's partition is stable and the partitions share the schedules evenly. */
class PartitionsTest {

  private final Partitions partitions = new Partitions(64);

  @Test
  void aScheduleAlwaysLandsInTheSamePartition() {
    assertThat(partitions.of("order-fulfilment")).isEqualTo(partitions.of("order-fulfilment"));
    assertThat(new Partitions(64).of("order-fulfilment"))
        .isEqualTo(partitions.of("order-fulfilment"));
    assertThat(partitions.leaseName(7)).isEqualTo("partition:07");
    assertThatThrownBy(() -> new Partitions(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void namesThatDifferInTheirLastCharactersSpreadEvenly() {
    int[] counts = new int[64];
    for (int i = 0; i < 10_000; i++) {
      int p = partitions.of(String.format("job-%05d", i));
      assertThat(p).isBetween(0, 63);
      counts[p]++;
    }
    // 156 on average; a digest keeps every partition within a third of it.
    for (int c : counts) {
      assertThat(c).isBetween(104, 208);
    }
  }

  @Test
  void theUpkeepsOfThePartitionsSpreadOverThePeriod() {
    assertThat(partitions.phase(0, 640)).isEqualTo(1);
    assertThat(partitions.phase(32, 640)).isEqualTo(321);
    assertThat(partitions.phase(63, 640)).isLessThanOrEqualTo(640);
  }

  @Test
  void theFairShareRoundsUp() {
    assertThat(InstanceRoster.fairShare(64, 1)).isEqualTo(64);
    assertThat(InstanceRoster.fairShare(64, 3)).isEqualTo(22);
    assertThat(InstanceRoster.fairShare(12, 3)).isEqualTo(4);
    assertThat(InstanceRoster.fairShare(4, 8)).isEqualTo(1);
    assertThat(InstanceRoster.fairShare(64, 0)).isEqualTo(64);
  }
}
