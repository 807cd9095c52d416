package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.AttemptFailedException;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.testing.TestInfra;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A handler's advice on retries ({@link AttemptFailedException}) reaches the timers' retry: a
 * permanent failure is not retried, a Retry-After delays the next attempt past the policy's
 * backoff.
 */
class HandlerRetryAdviceIT {

  private final PostgresEndpoint db = TestInfra.freshDatabase("retry_advice");

  private static JobsFile jobs(String... names) {
    StringBuilder yaml = new StringBuilder("jobs:\n");
    for (String name : names) {
      yaml.append("  - name: ")
          .append(name)
          .append("\n    schedule: { every: PT1S }\n")
          .append("    catchUp: { policy: NONE }\n")
          .append("    overlap: ALLOW\n")
          .append("    retry: { maxAttempts: 3, initialBackoff: PT0.2S }\n");
    }
    return JobsFile.parse(yaml.toString(), "test-jobs");
  }

  @Test
  void aPermanentFailureIsNotRetriedAndRetryAfterDelaysTheNextAttempt() throws Exception {
    Map<Instant, List<Integer>> permanent = new ConcurrentHashMap<>();
    Map<Instant, List<Long>> delayed = new ConcurrentHashMap<>();
    JobHandler refuse =
        run -> {
          permanent.computeIfAbsent(run.nominal(), k -> new CopyOnWriteArrayList<>()).add(1);
          throw AttemptFailedException.permanent("HTTP 404");
        };
    JobHandler busy =
        run -> {
          delayed
              .computeIfAbsent(run.nominal(), k -> new CopyOnWriteArrayList<>())
              .add(System.nanoTime());
          if (run.attempt() == 1) {
            throw AttemptFailedException.retryAfter("HTTP 429", Duration.ofSeconds(2));
          }
          return Map.of();
        };
    try (TimerInstance i =
        new TimerInstance(
            "advice-0",
            db,
            "slotkeeper-test:" + UUID.randomUUID() + ":",
            jobs("refused", "busy"),
            model -> Map.of("refused", refuse, "busy", busy))) {
      Thread.sleep(6_000);
      i.stopTimers();
    }
    assertThat(permanent).isNotEmpty();
    assertThat(permanent.values()).allSatisfy(attempts -> assertThat(attempts).hasSize(1));
    List<List<Long>> retried =
        delayed.values().stream().filter(times -> times.size() == 2).toList();
    assertThat(retried).isNotEmpty();
    for (List<Long> times : retried) {
      assertThat(Duration.ofNanos(times.get(1) - times.get(0)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
    }
  }
}
