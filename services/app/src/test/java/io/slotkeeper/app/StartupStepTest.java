package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Future;
import java.net.SocketException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * A start-up step that fails fails the start with an unchecked exception naming the step, also when
 * its cause is a checked exception, so that {@code Main} ends the process (make chaos met an
 * instance whose main thread died of a connection reset while the process stayed up, unready).
 */
class StartupStepTest {

  @Test
  void aCheckedFailureBecomesAnUncheckedOneNamingTheStep() {
    SocketException reset = new SocketException("Connection reset");
    assertThatThrownBy(() -> Slotkeeper.await(Future.failedFuture(reset), "the schedule catalog"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the schedule catalog did not start")
        .hasCause(reset);
    SQLException closed = new SQLException("Connection is closed");
    assertThatThrownBy(() -> Slotkeeper.await(Future.failedFuture(closed), "the jobs file"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the jobs file")
        .hasCause(closed);
  }

  @Test
  void anUncheckedFailureIsThrownAsItIs() {
    IllegalArgumentException bad = new IllegalArgumentException("bad");
    assertThatThrownBy(() -> Slotkeeper.await(Future.failedFuture(bad), "the timers"))
        .isSameAs(bad);
  }

  @Test
  void aSucceededStepAnswersItsResult() {
    assertThat(Slotkeeper.await(Future.succeededFuture(42), "the answer")).isEqualTo(42);
  }
}
