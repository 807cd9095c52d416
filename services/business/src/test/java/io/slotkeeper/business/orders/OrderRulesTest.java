package io.slotkeeper.business.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class OrderRulesTest {

  private static PlaceOrder withCurrency(String currency) {
    return new PlaceOrder("cmd-1", "o-1", "c-1", currency, List.of(new OrderLine("A", 1, 100)));
  }

  @Test
  void anIso4217CodeIsAccepted() {
    assertThatCode(() -> OrderRules.validate(withCurrency("CNY"))).doesNotThrowAnyException();
    assertThatCode(() -> OrderRules.validate(withCurrency("EUR"))).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "cny", "CN", "CNYX", "C1Y", "ÄUR", "QQQ", " CNY"})
  void anythingElseIsRejectedNamingTheField(String currency) {
    assertThatThrownBy(() -> OrderRules.validate(withCurrency(currency)))
        .isInstanceOfSatisfying(
            InvalidCommandException.class,
            e -> assertThat(e.fieldErrors()).containsOnlyKeys("currency"));
  }
}
