package io.slotkeeper.slots;

import io.slotkeeper.commands.CommandRefused;

/**
 * A fire carried a fencing token lower than the highest the ledger has seen for the job: its sender
 * lost the job's lease (paused past it, or partitioned) and another instance holds it now.
 */
public final class StaleFencingTokenException extends CommandRefused {

  private final String job;
  private final long token;

  public StaleFencingTokenException(String job, long token) {
    super(
        Kind.WRONG_STATE,
        "Stale fencing token",
        "fencing token "
            + token
            + " of job "
            + job
            + " is stale: a newer lease holder has fired since");
    this.job = job;
    this.token = token;
  }

  public String job() {
    return job;
  }

  public long token() {
    return token;
  }
}
