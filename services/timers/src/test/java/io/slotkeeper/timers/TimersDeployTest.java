package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.InMemoryScheduleCatalog;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A job of the catalog without a handler in this build stops start-up, naming it. */
class TimersDeployTest {

  @Test
  void aJobWithoutAHandlerIsRefusedByName() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      JobsFile jobs =
          JobsFile.parse(
              "jobs:\n  - name: nightly-export\n    schedule: { every: PT1M }\n", "test-jobs");
      SlotRunner runner = new SlotRunner(vertx, null, Map.of("noop", run -> Map.of()), "x");
      Future<Timers> deployed =
          Timers.deploy(
              vertx,
              InMemoryScheduleCatalog.of(jobs),
              runner,
              null,
              null,
              null,
              SlotClock.system(),
              "x",
              Timers.Settings.defaults());
      assertThat(deployed.failed()).isTrue();
      assertThat(deployed.cause())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("job 'nightly-export'")
          .hasMessageContaining("handler 'nightly-export'");
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
