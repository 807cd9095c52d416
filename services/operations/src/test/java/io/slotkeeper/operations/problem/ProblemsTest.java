package io.slotkeeper.operations.problem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.slotkeeper.commands.AggregateAlreadyExistsException;
import io.slotkeeper.commands.AggregateNotFoundException;
import io.slotkeeper.commands.CommandIdReusedException;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.RuleViolationException;
import io.slotkeeper.slots.StaleFencingTokenException;
import io.vertx.pgclient.PgException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Refused commands answer by their kind; PostgreSQL errors say "retry later" only when a retry can
 * outlive the error.
 */
class ProblemsTest {

  static Stream<Arguments> refusals() {
    return Stream.of(
        arguments(new InvalidCommandException("bad", Map.of("qty", "must be positive")), 400),
        arguments(new AggregateNotFoundException("Order", "o-1"), 404),
        arguments(new IllegalTransitionException("o-1", "CANCELLED", "cannot cancel"), 409),
        arguments(new StaleFencingTokenException("job", 3), 409),
        arguments(new AggregateAlreadyExistsException("o-1"), 409),
        arguments(new RuleViolationException("o-1", "too much"), 422),
        arguments(new CommandIdReusedException("c-1", "PlaceOrder"), 422));
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void aRefusalAnswersWithTheStatusOfItsKind(RuntimeException refusal, int status) {
    ApiProblem p = Problems.from(new CompletionException(refusal));
    assertThat(p.status()).isEqualTo(status);
    assertThat(p.detail()).isEqualTo(refusal.getMessage());
  }

  @org.junit.jupiter.api.Test
  void titlesTellRefusalsOfOneStatusApart() {
    assertThat(Problems.from(new IllegalTransitionException("o", "NEW", "no")).title())
        .isEqualTo("Conflict with current state");
    assertThat(Problems.from(new StaleFencingTokenException("job", 3)).title())
        .isEqualTo("Stale fencing token");
    // gRPC answers ALREADY_EXISTS for this title, FAILED_PRECONDITION for the other 409s.
    assertThat(Problems.from(new AggregateAlreadyExistsException("o")).title())
        .isEqualTo("Already exists");
    assertThat(Problems.from(new RuleViolationException("o", "no")).title())
        .isEqualTo("Rule violated");
    assertThat(Problems.from(new CommandIdReusedException("c", "X")).title())
        .isEqualTo("Command ID reused");
    assertThat(Problems.from(new AggregateNotFoundException("Order", "o")).title())
        .isEqualTo("Not Found");
    ApiProblem invalid = Problems.from(new InvalidCommandException("bad", Map.of("qty", "> 0")));
    assertThat(invalid.title()).isEqualTo("Invalid request");
    assertThat(invalid.fields()).containsEntry("qty", "> 0");
  }

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

  @Test
  void aStorageConnectionLostOrClosedSaysRetryLaterWhereverItIsInTheCauses() {
    // What the fault property met as 500s: a reset on the Vert.x clients, a Hikari connection
    // closed under a JDBC statement, and either wrapped by the layers above.
    assertThat(Problems.from(new java.net.SocketException("Connection reset")).status())
        .isEqualTo(503);
    assertThat(Problems.from(new java.sql.SQLException("Connection is closed", "08003")).status())
        .isEqualTo(503);
    assertThat(
            Problems.from(
                    new CompletionException(
                        new IllegalStateException(
                            "statement failed", new java.net.SocketException("reset"))))
                .status())
        .isEqualTo(503);
    assertThat(Problems.from(new java.sql.SQLException("syntax", "42601")).status()).isEqualTo(500);
  }
}
