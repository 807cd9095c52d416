package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's walk-through, {@code docs/walkthrough.sh}, run top to bottom against a started
 * service: every step's status (and a telling part of its answer) is checked by the script; it runs
 * twice, as a user retrying it would, and the README shows its curl lines verbatim.
 */
class WalkthroughIT {

  static final Path SCRIPT = Path.of("..", "..", "docs", "walkthrough.sh");
  static final Path README = Path.of("..", "..", "README.md");
  private static final Pattern STATUS_LINE = Pattern.compile("(?m)^[1-5]\\d\\d ");

  @Test
  void theWalkthroughAnswersEveryStepAsTheReadmeSaysTwiceInARow() throws Exception {
    String script = Files.readString(SCRIPT);
    long steps = script.lines().filter(l -> l.startsWith("expect ")).count();
    assertThat(steps).isGreaterThan(20);
    try (AppHarness h = new AppHarness("walkthrough", Map.of())) {
      for (int run = 1; run <= 2; run++) {
        ProcessBuilder pb = new ProcessBuilder("bash", SCRIPT.toString()).redirectErrorStream(true);
        pb.environment().put("SLOTKEEPER_URL", "http://127.0.0.1:" + h.app.httpPort());
        pb.environment().put("SLOTKEEPER_CLIENT_TOKEN", AppHarness.CLIENT);
        pb.environment().put("SLOTKEEPER_OPERATOR_TOKEN", AppHarness.OPERATOR);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("run %d finished", run).isTrue();
        assertThat(p.exitValue()).as("run %d exit status; output:%n%s", run, out).isZero();
        assertThat(out).contains("walkthrough: every step answered as expected");
        assertThat(STATUS_LINE.matcher(out).results().count()).as(out).isEqualTo(steps);
      }
      // The second run replayed every write: one order placed and one cancelled, one refund.
      assertThat(
              h.count(
                  "SELECT count(*) FROM domain_event_entry WHERE payload_type LIKE '%OrderPlaced'"))
          .isEqualTo(2);
      assertThat(
              h.count(
                  "SELECT count(*) FROM domain_event_entry"
                      + " WHERE payload_type LIKE '%RefundRequested'"))
          .isEqualTo(1);
    }
  }

  @Test
  void theReadmeShowsTheScriptsCommandsVerbatim() throws IOException {
    List<String> commands =
        logicalLines(Files.readString(SCRIPT)).stream()
            .filter(l -> l.startsWith("curl "))
            .collect(Collectors.toList());
    assertThat(commands).hasSizeGreaterThan(20);
    List<String> readme = logicalLines(Files.readString(README));
    assertThat(commands).allSatisfy(c -> assertThat(readme).as("README shows %s", c).contains(c));
  }

  /** Lines with their backslash continuations joined, spaces around the joins made one. */
  static List<String> logicalLines(String text) {
    return List.of(text.replaceAll("\\\\\\n\\s*", " ").split("\\n")).stream()
        .map(String::strip)
        .collect(Collectors.toList());
  }
}
