package io.slotkeeper.scheduler.schedule.job;

/**
 * A jobs file that cannot be used. The message names the file, the job and the field, e.g. {@code
 * jobs.yaml: jobs[2] (daily-report).zone: unknown time zone 'Asia/Shangai'}, so start-up fails with
 * one line an operator can act on.
 */
public final class JobsFileException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String field;

  /** A problem with {@code field} (a path such as {@code jobs[0] (a).retry.maxAttempts}). */
  public JobsFileException(String source, String field, String problem) {
    super(source + ": " + field + ": " + problem);
    this.field = field;
  }

  /** A problem with the file as a whole (unreadable, not YAML). */
  public JobsFileException(String source, String problem, Throwable cause) {
    super(source + ": " + problem, cause);
    this.field = "";
  }

  /** The path of the offending field, empty for a problem with the whole file. */
  public String field() {
    return field;
  }
}
