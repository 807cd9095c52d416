package io.slotkeeper.operations.problem;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.pgclient.PgException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PostgreSQL errors: "retry later" only when a retry can outlive the error. */
class ProblemsTest {

  @ParameterizedTest
  @CsvSource({
    "08006, 503", // connection failure
    "57P01, 503", // admin shutdown
    "53300, 503", // too many connections
    "40001, 503", // serialization failure
    "40P01, 503", // deadlock
    "55P03, 503", // lock not available
    "23505, 500", // unique violation: a retry repeats it
    "42P01, 500", // undefined table
    "22001, 500", // value too long
  })
  void onlyTransientPostgresErrorsSayRetryLater(String sqlState, int status) {
    ApiProblem p = Problems.from(new PgException("boom", "ERROR", sqlState, null));
    assertThat(p.status()).isEqualTo(status);
  }
}
