package io.slotkeeper.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/examples/receiver.py, the protocol without this library: the doc's Python receiver, run as a
 * process, dedupes by key and refuses a lower token. Skipped where python3 is not on the PATH.
 */
class PythonReceiverIT {

  private static final Path RECEIVER = Path.of("../docs/examples/receiver.py");
  private static final String SECRET = "whsec_python";
  private static final String BODY = "{\"schedule\":\"py\"}";
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process python;

  @AfterEach
  void stop() {
    if (python != null) {
      python.destroy();
    }
  }

  @Test
  void theDocsPythonReceiverDedupesByKeyAndRefusesALowerToken() throws Exception {
    assumeTrue(pythonAvailable(), "python3 is not on the PATH");
    assertThat(RECEIVER).exists();
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    python =
        new ProcessBuilder("python3", RECEIVER.toString(), Integer.toString(port), SECRET)
            .redirectErrorStream(true)
            .redirectOutput(Files.createTempFile("receiver-py", ".log").toFile())
            .start();

    HttpResponse<String> first = send(port, "key-1", 7, SECRET);
    HttpResponse<String> replay = send(port, "key-1", 7, SECRET);
    HttpResponse<String> stale = send(port, "key-2", 6, SECRET);
    HttpResponse<String> forged = send(port, "key-3", 7, "guessed");

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("done key-1");
    assertThat(replay.statusCode()).isEqualTo(200);
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(stale.statusCode()).isEqualTo(409);
    assertThat(forged.statusCode()).isEqualTo(401);
  }

  private HttpResponse<String> send(int port, String key, long token, String secret)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
            .timeout(Duration.ofSeconds(5))
            .header(DeliveryHeaders.IDEMPOTENCY_KEY, key)
            .header(DeliveryHeaders.SCHEDULE, "py")
            .header(DeliveryHeaders.SLOT, "2026-01-01T00:00:00Z")
            .header(DeliveryHeaders.ATTEMPT, "1")
            .header(DeliveryHeaders.FENCING_TOKEN, Long.toString(token))
            .header(
                DeliveryHeaders.SIGNATURE,
                Signature.sign(secret, Instant.now().getEpochSecond(), BODY))
            .POST(HttpRequest.BodyPublishers.ofString(BODY))
            .build();
    // the process takes a moment to listen
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      try {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (ConnectException e) {
        if (System.nanoTime() > deadline || !python.isAlive()) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  private static boolean pythonAvailable() {
    try {
      return new ProcessBuilder("python3", "--version").start().waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
