package io.slotkeeper.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StorableTextTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "plain",
        "tab\tand\nnewline",
        "é中文",
        "emoji \uD83D\uDE00 pair",
        "\uFFFD",
        "\\u0000 as six characters",
        ""
      })
  void acceptsWhatPostgresqlStores(String s) {
    assertThat(StorableText.problemWith(s)).isNull();
    assertThat(StorableText.sanitize(s)).isSameAs(s);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a\u0000", "\u0001", "cr\r", "esc\u001b[31m", "del\u007f", "c1\u0085", "\u009f"})
  void refusesControlCharactersButTabAndNewline(String s) {
    assertThat(StorableText.problemWith(s)).contains("control character").contains("U+");
    assertThat(StorableText.sanitize(s)).doesNotContainPattern("\\p{Cc}");
    assertThat(StorableText.sanitize(s)).contains("\uFFFD");
  }

  @ParameterizedTest
  @ValueSource(strings = {"\uD800", "a\uDC00", "\uD83Dx", "x\uD83D", "\uDE00\uD83D"})
  void refusesUnpairedSurrogates(String s) {
    assertThat(StorableText.problemWith(s)).contains("unpaired UTF-16 surrogate");
    String clean = StorableText.sanitize(s);
    assertThat(StorableText.problemWith(clean)).isNull();
    assertThat(clean).hasSameSizeAs(s);
  }

  @org.junit.jupiter.api.Test
  void namesTheCharacterAndItsPlace() {
    assertThat(StorableText.problemWith("ab\u0000"))
        .isEqualTo(
            "must not contain a control character (only tab and newline are allowed):"
                + " U+0000 at character 3");
    assertThat(StorableText.sanitize("a\u0000b\uD800\uD83D\uDE00"))
        .isEqualTo("a\uFFFDb\uFFFD\uD83D\uDE00");
  }

  @org.junit.jupiter.api.Test
  void findsEveryUnstorableFieldOfACommand() {
    PlaceOrder place =
        new PlaceOrder(
            "cmd",
            "o-1",
            "c\u0000",
            "CNY",
            List.of(new OrderLine("ok", 1, 1), new OrderLine("x\uD800", 1, 1)));
    assertThat(StorableText.problemsIn(place)).containsOnlyKeys("customerId", "items[1].sku");
    CompleteSlot complete = new CompleteSlot("cmd", "s", "i", 1, Map.of("n\u0007", 1L), 5);
    assertThat(StorableText.problemsIn(complete)).containsOnlyKeys("counts.<key>");
    assertThat(StorableText.problemsIn(new PlaceOrder("c", "o", "c", "CNY", List.of()))).isEmpty();
  }
}
