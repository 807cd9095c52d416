package io.slotkeeper.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slotkeeper.receiver.Signature.Verification.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SignatureTest {

  private static final Duration TOLERANCE = Signature.DEFAULT_TOLERANCE;
  private static final long T = 1_767_225_600L; // 2026-01-01T00:00:00Z
  private static final Instant NOW = Instant.ofEpochSecond(T);
  private static final byte[] BODY =
      "{\"schedule\":\"nightly-report\",\"slot\":\"2026-01-01T00:00:00Z\"}"
          .getBytes(StandardCharsets.UTF_8);

  /** The worked example of docs/http-targets.md (also: openssl dgst -sha256 -hmac). */
  @Test
  void signsTheDocumentedExample() {
    assertThat(Signature.sign("whsec_example", T, BODY))
        .isEqualTo(
            "t=1767225600,v1=938ae4fb2d1a7fe2199588336f84525fe9f6db8f2765d583753787290be4a01d");
  }

  @Test
  void aSignedBodyVerifiesWithinTheTolerance() {
    String header = Signature.sign("s3cret", T, BODY);
    assertThat(Signature.verify("s3cret", header, BODY, NOW, TOLERANCE).valid()).isTrue();
    assertThat(Signature.verify("s3cret", header, BODY, NOW.plusSeconds(300), TOLERANCE).valid())
        .isTrue();
    assertThat(Signature.verify("s3cret", header, BODY, NOW.minusSeconds(300), TOLERANCE).valid())
        .isTrue();
  }

  @Test
  void aTamperedBodyOrAnotherSecretIsAMismatch() {
    String header = Signature.sign("s3cret", T, BODY);
    byte[] tampered = BODY.clone();
    tampered[3] ^= 1;
    assertThat(Signature.verify("s3cret", header, tampered, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MISMATCH);
    assertThat(Signature.verify("other", header, BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MISMATCH);
    // the timestamp is signed too: moving it breaks the signature
    String moved = header.replace("t=" + T, "t=" + (T + 1));
    assertThat(Signature.verify("s3cret", moved, BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MISMATCH);
  }

  @Test
  void anOldOrFutureTimestampIsRefusedWhateverTheSignature() {
    String header = Signature.sign("s3cret", T, BODY);
    Signature.Verification old =
        Signature.verify("s3cret", header, BODY, NOW.plusSeconds(301), TOLERANCE);
    assertThat(old.reason()).isEqualTo(Reason.TOO_OLD);
    assertThat(old.detail()).contains("301 s ago");
    assertThat(Signature.verify("s3cret", header, BODY, NOW.minusSeconds(301), TOLERANCE).reason())
        .isEqualTo(Reason.IN_FUTURE);
  }

  @Test
  void duringARotationEitherSecretVerifies() {
    String both = Signature.sign(List.of("old", "new"), T, BODY);
    assertThat(both.split(",")).hasSize(3);
    assertThat(Signature.verify("new", both, BODY, NOW, TOLERANCE).valid()).isTrue();
    assertThat(Signature.verify("old", both, BODY, NOW, TOLERANCE).valid()).isTrue();
    // a receiver that knows both accepts a sender that still signs with the old one only
    String oldOnly = Signature.sign("old", T, BODY);
    assertThat(Signature.verify(List.of("new", "old"), oldOnly, BODY, NOW, TOLERANCE).valid())
        .isTrue();
    assertThat(Signature.verify(List.of("newer"), both, BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MISMATCH);
  }

  @Test
  void otherSchemesAreIgnored() {
    String header = Signature.sign("s3cret", T, BODY) + ",v0=abc";
    assertThat(Signature.verify("s3cret", header, BODY, NOW, TOLERANCE).valid()).isTrue();
  }

  @Test
  void aMissingOrMalformedHeaderSaysWhy() {
    assertThat(Signature.verify("s", null, BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MISSING);
    assertThat(Signature.verify("s", " ", BODY, NOW, TOLERANCE).reason()).isEqualTo(Reason.MISSING);
    String v1 = ",v1=" + "ab".repeat(32);
    assertThat(Signature.verify("s", "v1=" + "ab".repeat(32), BODY, NOW, TOLERANCE).detail())
        .isEqualTo("no t= timestamp");
    assertThat(Signature.verify("s", "t=" + T, BODY, NOW, TOLERANCE).detail())
        .isEqualTo("no v1= signature");
    assertThat(Signature.verify("s", "t=yesterday" + v1, BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MALFORMED);
    assertThat(Signature.verify("s", "t=" + T + ",v1=xyz", BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MALFORMED);
    assertThat(Signature.verify("s", "t=" + T + ",t=" + T + v1, BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MALFORMED);
    assertThat(Signature.verify("s", "garbage", BODY, NOW, TOLERANCE).reason())
        .isEqualTo(Reason.MALFORMED);
  }

  @Test
  void anEmptySecretCannotSign() {
    assertThatThrownBy(() -> Signature.sign("", T, BODY))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
