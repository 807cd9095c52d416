package io.slotkeeper.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.metrics.SlotkeeperMetrics.CommandOutcome;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How a command's end is counted: every refusal is rejected, anything else failed. */
class CommandServiceTest {

  @Test
  void everyRefusalCountsAsRejected() {
    for (CommandRefused refusal :
        new CommandRefused[] {
          new InvalidCommandException("bad"),
          new AggregateNotFoundException("Order", "o-1"),
          new IllegalTransitionException("o-1", "CANCELLED", "cannot cancel"),
          new AggregateAlreadyExistsException("o-1"),
          new RuleViolationException("o-1", "too much"),
          new CommandIdReusedException("c-1", "PlaceOrder"),
          new CommandRefused(CommandRefused.Kind.RULE_VIOLATED, "another module's refusal") {}
        }) {
      assertThat(CommandService.outcomeOf(null, new CompletionException(refusal)))
          .as(refusal.getClass().getName())
          .isEqualTo(CommandOutcome.REJECTED);
    }
  }

  @Test
  void anythingElseCountsAsFailed() {
    assertThat(CommandService.outcomeOf(null, new IllegalStateException("no connection")))
        .isEqualTo(CommandOutcome.FAILED);
    assertThat(CommandService.outcomeOf(null, new IllegalArgumentException("a bug")))
        .isEqualTo(CommandOutcome.FAILED);
  }
}
