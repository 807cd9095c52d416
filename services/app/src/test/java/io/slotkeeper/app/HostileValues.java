package io.slotkeeper.app;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of hostile values shared by the HTTP and gRPC fuzz properties. */
final class HostileValues {

  private HostileValues() {}

  static final List<String> INJECTIONS =
      List.of(
          "' OR 1=1 --",
          "'; DROP TABLE orders; --",
          "\" OR \"\"=\"",
          "../../etc/passwd",
          "..%2F..%2Fetc%2Fpasswd",
          "%00",
          "\u0000",
          "a\u0000b",
          "<script>alert(1)</script>",
          "${jndi:ldap://x/a}",
          "#{7*7}",
          "{{7*7}}",
          "$(reboot)",
          "`id`",
          "\r\nX-Injected: 1",
          "%0d%0aX-Injected:%201",
          "\\",
          "\"",
          "{}",
          "[]",
          "null",
          "NaN",
          "-Infinity",
          "\ud83d\udca5\u202e\ufeff",
          "\ud800",
          "\u00e9\u00e8",
          "\u65e5\u672c\u8a9e".repeat(2000));

  /**
   * Characters that no text field may carry (see StorableText): NUL and the other C0 controls but
   * tab and newline, DEL, C1 controls, and surrogates (unpaired wherever they are put alone).
   */
  static Arbitrary<Character> unstorableChars() {
    return Arbitraries.oneOf(
        Arbitraries.of('\u0000', '\r', '\u001b', '\u007f', '\u0085', '\ud800', '\udfff'),
        Arbitraries.chars().range('\u0000', '\u0008'),
        Arbitraries.chars().range('\u000b', '\u001f'),
        Arbitraries.chars().range('\u007f', '\u009f'),
        Arbitraries.chars().range('\ud800', '\udfff'));
  }

  /**
   * Short printable text with one {@link #unstorableChars() unstorable character} inserted
   * anywhere: valid in every other way, so its refusal is about that character alone.
   */
  static Arbitrary<String> unstorableStrings() {
    Arbitrary<String> text = Arbitraries.strings().withCharRange('a', 'z').ofMaxLength(20);
    return Combinators.combine(text, unstorableChars(), text).as((a, c, b) -> a + c + b);
  }

  /** Injection strings, random unicode and huge strings (up to 70 KB). */
  static Arbitrary<String> hostileStrings() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, Arbitraries.of(INJECTIONS)),
        net.jqwik.api.Tuple.of(2, Arbitraries.strings().all().ofMinLength(1).ofMaxLength(40)),
        net.jqwik.api.Tuple.of(1, hugeStrings()));
  }

  /** Strings of 1,025 to 70,000 characters (over every field limit, some over the body limit). */
  static Arbitrary<String> hugeStrings() {
    return Arbitraries.integers()
        .between(1_025, 70_000)
        .flatMap(
            n ->
                Arbitraries.of("x", "\u00e9", "\u65e5", "' OR 1=1 -- ", "\ud83d\udca5")
                    .map(unit -> unit.repeat(n / unit.length() + 1).substring(0, n)));
  }

  /**
   * Idempotency-Keys that are invalid after HTTP trims the value: empty, blank, over 255
   * characters, control characters, or non-ASCII as header bytes (one char per byte, see {@link
   * #nonAsciiKeyBytes()}).
   */
  static Arbitrary<String> badKeys() {
    return Arbitraries.oneOf(
        Arbitraries.of("", " ", "   ", "\t"),
        Arbitraries.integers().between(256, 9_000).map("k"::repeat),
        Arbitraries.of("a\tb", "\t\t"),
        nonAsciiKeyBytes());
  }

  /**
   * Keys of printable ASCII around at least one non-ASCII character, as text (what a protobuf field
   * carries): "ù-key", "clé", CJK, a no-break space, an emoji...
   */
  static Arbitrary<String> nonAsciiKeyTexts() {
    Arbitrary<String> ascii = Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20);
    Arbitrary<String> nonAscii =
        Arbitraries.oneOf(
            Arbitraries.of("\u00f9", "\u00e9", "\u00a0", "\u00ff", "\u0080", "\ud83d\udca5"),
            Arbitraries.chars().range('\u0080', '\ud7ff').map(String::valueOf));
    return Combinators.combine(ascii, nonAscii, ascii).as((a, n, b) -> a + n + b);
  }

  /**
   * {@link #nonAsciiKeyTexts()} as a header carries them: the UTF-8 bytes (curl, most clients) or
   * the Latin-1 bytes where the text fits, one char per byte. {@code java.net.http} cannot send
   * these over HTTP/1.1 (it would send '?'); see {@link RawHttp}.
   */
  static Arbitrary<String> nonAsciiKeyBytes() {
    return nonAsciiKeyTexts()
        .flatMap(
            t ->
                t.chars().allMatch(c -> c <= 0xff)
                    ? Arbitraries.of(RawHttp.utf8(t), t)
                    : Arbitraries.just(RawHttp.utf8(t)));
  }

  /** Stands for "send no such header". */
  static final String NO_HEADER = "<no header>";

  /** Authorization header values that grant nothing ({@link #NO_HEADER}: none). */
  static Arbitrary<String> badAuthorizations() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            NO_HEADER,
            "",
            "Bearer",
            "Bearer ",
            "Bearer  ",
            "Bearer null",
            "Basic " + java.util.Base64.getEncoder().encodeToString("a:b".getBytes()),
            "Basic " + AppHarness.CLIENT,
            "Token " + AppHarness.OPERATOR,
            AppHarness.OPERATOR,
            "Bearer " + AppHarness.OPERATOR + "x",
            "Bearer " + AppHarness.CLIENT.substring(0, 10),
            "Bearer " + AppHarness.OPERATOR + " " + AppHarness.OPERATOR,
            "Bearer ' OR 1=1 --",
            "Bearer ${jndi:ldap://x/a}"),
        Arbitraries.integers().between(100, 7_000).map(n -> "Bearer " + "t".repeat(n)));
  }

  /** ISO-8601 instants at and beyond the edges of what java.time and PostgreSQL hold. */
  static Arbitrary<String> extremeInstants() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "-1000000000-01-01T00:00:00Z",
            "+1000000000-12-31T23:59:59.999999999Z",
            "-999999999-01-01T00:00:00Z",
            "+999999999-12-31T23:59:59Z",
            "-4713-11-24T00:00:00Z",
            "+294276-12-31T23:59:59Z",
            "+275760-09-13T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "1970-01-01T00:00:00.000000001Z",
            "2016-12-31T23:59:60Z",
            "2026-02-30T00:00:00Z",
            "2026-11-28T16:05:00+25:00",
            "2026-11-28T16:05:00",
            "2026-11-28",
            "16:05:00Z",
            "P1D"),
        Arbitraries.longs()
            .between(java.time.Instant.MIN.getEpochSecond(), java.time.Instant.MAX.getEpochSecond())
            .map(s -> java.time.Instant.ofEpochSecond(s, 1).toString()));
  }
}
