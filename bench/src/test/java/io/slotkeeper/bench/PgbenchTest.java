package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PgbenchTest {

  // pgbench 15's report, as the benchmark's log kept it
  private static final String REPORT =
      """
      pgbench (15.20 (Debian 15.20-0+deb12u1))
      transaction type: bench/results/tmp/logs/ba29dbeb3/pgbench.sql
      scaling factor: 1
      query mode: simple
      number of clients: 32
      number of threads: 2
      maximum number of tries: 1
      duration: 15 s
      number of transactions actually processed: 122075
      number of failed transactions: 0 (0.000%)
      latency average = 3.933 ms
      initial connection time = 37.285 ms
      tps = 8136.341557 (without initial connection time)
      """;

  @Test
  void readsTheRateWithoutConnectionTimeAndTheCommittedTransactions() {
    Pgbench.Result r = Pgbench.parse(0, REPORT);

    assertThat(r.tps()).isEqualTo(8136.341557);
    assertThat(r.transactions()).isEqualTo(122_075);
  }

  @Test
  void readsTheOlderReportFormatToo() {
    // pgbench before 14: "tps = ... (excluding connections establishing)"
    String older =
        "number of transactions actually processed: 500\n"
            + "tps = 100.5 (including connections establishing)\n"
            + "tps = 101.25 (excluding connections establishing)\n";

    assertThat(Pgbench.parse(0, older).tps()).isEqualTo(101.25);
  }

  @Test
  void aFailedRunIsAnErrorWithPgbenchsOwnWords() {
    assertThatThrownBy(() -> Pgbench.parse(1, "pgbench: error: connection refused"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exit 1")
        .hasMessageContaining("connection refused");
  }

  @Test
  void aReportWithoutTheTransactionCountIsAnError() {
    assertThatThrownBy(() -> Pgbench.parse(0, "tps = 100.0 (without initial connection time)"))
        .isInstanceOf(IllegalStateException.class);
  }
}
