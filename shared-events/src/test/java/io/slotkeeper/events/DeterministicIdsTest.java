package io.slotkeeper.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DeterministicIdsTest {

  @Test
  void v5MatchesTheRfcReferenceVector() {
    // RFC 9562 appendix A.4: "www.example.com" in the DNS namespace.
    UUID dns = UUID.fromString("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
    assertThat(DeterministicIds.v5(dns, "www.example.com"))
        .isEqualTo(UUID.fromString("2ed6657d-e927-568b-95e1-2665a8aea6a2"));
  }

  @Test
  void sameKeyGivesSameIdAndOtherKeysDiffer() {
    String a = DeterministicIds.forIdempotencyKey("orders.place", "key-1");
    assertThat(DeterministicIds.forIdempotencyKey("orders.place", "key-1")).isEqualTo(a);
    assertThat(DeterministicIds.forIdempotencyKey("orders.place", "key-2")).isNotEqualTo(a);
    assertThat(DeterministicIds.forIdempotencyKey("orders.cancel", "key-1")).isNotEqualTo(a);
    assertThat(UUID.fromString(a).version()).isEqualTo(5);
  }

  @Test
  void partsAreJoinedUnambiguously() {
    assertThat(DeterministicIds.nameBased("ab", "c"))
        .isNotEqualTo(DeterministicIds.nameBased("a", "bc"));
  }

  @Test
  void nullPartIsRejected() {
    assertThatThrownBy(() -> DeterministicIds.nameBased("a", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refundIdDependsOnOrderAndCallerKey() {
    String id = DeterministicIds.refundId("o-1", "key-1");
    assertThat(DeterministicIds.refundId("o-1", "key-1")).isEqualTo(id);
    assertThat(DeterministicIds.refundId("o-1", "key-2")).isNotEqualTo(id);
    assertThat(DeterministicIds.refundId("o-2", "key-1")).isNotEqualTo(id);
    assertThat(UUID.fromString(id).version()).isEqualTo(5);
  }

  @Test
  void slotIdsDependOnJobAndInstantAndCommandIdsOnTheTarget() {
    Instant t = Instant.parse("2026-03-08T07:00:00Z");
    String slot = DeterministicIds.forSlot("daily-report", t);
    assertThat(slot)
        .isEqualTo(DeterministicIds.nameBased("slot", "daily-report", t.toString()).toString());
    assertThat(DeterministicIds.forSlot("daily-report", Instant.parse("2026-03-08T07:00:00.000Z")))
        .isEqualTo(slot);
    assertThat(DeterministicIds.forSlot("daily-report", t.plusSeconds(1))).isNotEqualTo(slot);
    assertThat(DeterministicIds.forSlot("other", t)).isNotEqualTo(slot);
    String command = DeterministicIds.forSlotCommand("daily-report", t, "order-1");
    assertThat(command).isNotEqualTo(slot);
    assertThat(DeterministicIds.forSlotCommand("daily-report", t, "order-2")).isNotEqualTo(command);
    assertThat(DeterministicIds.forSlotCommand("daily-report", t, "order-1")).isEqualTo(command);
  }
}
