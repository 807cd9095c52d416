package io.slotkeeper.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

  private static final List<String> PROXIES = List.of("postgres", "redis");

  @Test
  void aSeedIsItsPlan() {
    Duration window = Duration.ofSeconds(2);
    assertThat(FaultPlan.random(7, window, PROXIES, 2))
        .isEqualTo(FaultPlan.random(7, window, PROXIES, 2));
    assertThat(FaultPlan.random(7, window, PROXIES, 2).steps())
        .isNotEqualTo(FaultPlan.random(8, window, PROXIES, 2).steps());
  }

  @Test
  void everyProxyGetsFaultsInsideTheWindowAndEveryEpisodeEndsHealed() {
    Duration window = Duration.ofMillis(1500);
    LongStream.range(0, 500)
        .forEach(
            seed -> {
              FaultPlan plan = FaultPlan.random(seed, window, PROXIES, 3);
              for (String proxy : PROXIES) {
                List<FaultPlan.Step> own =
                    plan.steps().stream().filter(s -> s.proxy().equals(proxy)).toList();
                assertThat(own).isNotEmpty();
                assertThat(own.get(own.size() - 1).faults().isNone()).isTrue();
                assertThat(own).allMatch(s -> s.at().compareTo(window.plusMillis(50)) <= 0);
              }
              assertThat(plan.describe()).startsWith("seed " + seed);
            });
  }

  @Test
  void theSeedsCoverEveryKindOfFault() {
    String all =
        LongStream.range(0, 200)
            .mapToObj(s -> FaultPlan.random(s, Duration.ofSeconds(2), PROXIES, 2).describe())
            .reduce("", String::concat);
    assertThat(all)
        .contains(
            "reset connection #",
            "reset chunk #",
            "of connections",
            "latency",
            "stall",
            "blackhole");
  }
}
