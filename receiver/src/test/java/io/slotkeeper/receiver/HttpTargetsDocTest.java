package io.slotkeeper.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/http-targets.md shows what the code does: the Python receiver and the worked example. */
class HttpTargetsDocTest {

  private static String read(String path) throws IOException {
    return Files.readString(Path.of("..", path), StandardCharsets.UTF_8);
  }

  @Test
  void theDocShowsThePythonReceiverAsItIs() throws IOException {
    assertThat(read("docs/http-targets.md")).contains(read("docs/examples/receiver.py"));
  }

  @Test
  void theDocsWorkedExampleIsWhatSignatureSigns() throws IOException {
    String header =
        Signature.sign(
            "whsec_example",
            1_767_225_600L,
            "{\"schedule\":\"nightly-report\",\"slot\":\"2026-01-01T00:00:00Z\"}");
    assertThat(read("docs/http-targets.md")).contains("Slotkeeper-Signature: " + header);
  }
}
