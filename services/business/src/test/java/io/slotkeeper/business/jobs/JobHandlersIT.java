package io.slotkeeper.business.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.JobHandler;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The registry covers the shipped jobs file and names a job it cannot serve. */
class JobHandlersIT {

  private static JobsHarness harness;

  @BeforeAll
  static void setUp() {
    harness = new JobsHarness("job-handlers");
  }

  @AfterAll
  static void tearDown() {
    harness.close();
  }

  @Test
  void everyJobOfTheDefaultJobsFileHasAHandler() throws Exception {
    Map<String, JobHandler> handlers =
        JobHandlers.standard(
            harness.model().commands(), harness.fulfilment(), harness.dataSource());

    for (JobDefinition job : JobsFile.loadDefault().jobs()) {
      assertThat(handlers).containsKey(job.handler());
    }
    // the shipped jobs plus the benchmark/diagnostic handler "noop"
    assertThat(handlers).hasSize(JobsFile.loadDefault().jobs().size() + 1);
    assertThat(handlers.get(NoopJob.NAME).run(null)).containsEntry("runs", 1L);
    assertThat(handlers.get(DailyReportJob.NAME)).isInstanceOf(DailyReportJob.class);
  }

  @Test
  void aBadParameterFailsTheAttemptNamingJobAndParameter() {
    JobHandler handler = new DailyReportJob(harness.dataSource());

    assertThatThrownBy(
            () ->
                handler.run(
                    JobsHarness.slot(
                        DailyReportJob.NAME, Instant.EPOCH, Map.of("period", "one day"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("daily-report")
        .hasMessageContaining("period");
  }
}
