package io.slotkeeper.scheduler.schedule.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy.Decision;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OverlapAndRetryPolicyTest {

  @ParameterizedTest(name = "{0} with {1} running, {2} buffered: {3}")
  @CsvSource({
    "SKIP, 0, 0, RUN",
    "SKIP, 1, 0, SKIP",
    "BUFFER_ONE, 0, 0, RUN",
    "BUFFER_ONE, 1, 0, BUFFER",
    "BUFFER_ONE, 1, 1, SKIP",
    "ALLOW, 0, 0, RUN",
    "ALLOW, 3, 0, RUN",
  })
  void overlapDecisions(OverlapPolicy policy, int running, int buffered, Decision expected) {
    assertThat(policy.decide(running, buffered)).isEqualTo(expected);
  }

  @Test
  void negativeCountsAreRefused() {
    assertThatThrownBy(() -> OverlapPolicy.SKIP.decide(-1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void defaultRetryIsThreeAttemptsOneAndTwoSecondsApart() {
    RetryPolicy r = RetryPolicy.DEFAULT;
    assertThat(r.delayBefore(1)).contains(Duration.ZERO);
    assertThat(r.delayBefore(2)).contains(Duration.ofSeconds(1));
    assertThat(r.delayBefore(3)).contains(Duration.ofSeconds(2));
    assertThat(r.delayBefore(4)).isEmpty();
    assertThatThrownBy(() -> r.delayBefore(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void backoffIsCappedEvenForHugeAttemptNumbers() {
    RetryPolicy r = new RetryPolicy(1_000, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1));
    assertThat(r.delayBefore(7)).contains(Duration.ofSeconds(32));
    assertThat(r.delayBefore(8)).contains(Duration.ofMinutes(1));
    assertThat(r.delayBefore(1_000)).contains(Duration.ofMinutes(1));
  }

  @Test
  void invalidRetryPoliciesAreRefused() {
    assertThatThrownBy(() -> new RetryPolicy(0, Duration.ofSeconds(1), 2, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofSeconds(1), 0.5, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryPolicy(3, Duration.ofSeconds(-1), 2, Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
