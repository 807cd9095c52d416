package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code infra/jvm.options} holds the JVM options the service runs with; {@code make run} and the
 * benchmark read the file, the Kubernetes Deployment lists the options itself. Both must stay in
 * step, and this JDK must accept every option.
 */
class JvmOptionsTest {

  static final Path OPTIONS = ObservabilityIT.INFRA.resolve("jvm.options");

  static List<String> options() throws IOException {
    return Files.readAllLines(OPTIONS).stream()
        .map(String::trim)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .toList();
  }

  @Test
  void theFileHoldsOptionsThisJdkAccepts() throws Exception {
    assertThat(options()).isNotEmpty().allMatch(o -> o.startsWith("-"));
    Process java =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + OPTIONS,
                "-version")
            .redirectErrorStream(true)
            .start();
    String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(java.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(java.exitValue()).as(output).isZero();
  }

  @Test
  void aJvmOutOfHeapExitsSoItIsRestarted() throws IOException {
    assertThat(options()).contains("-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void theDeploymentAndMakeRunUseTheSameOptions() throws IOException {
    String deployment = Files.readString(ObservabilityIT.INFRA.resolve("k8s/slotkeeper.yaml"));
    String args =
        deployment.lines().filter(l -> l.trim().startsWith("args:")).findFirst().orElseThrow();
    for (String option : options()) {
      assertThat(args).as("infra/k8s/slotkeeper.yaml args").contains("\"" + option + "\"");
    }
    String makefile = Files.readString(ObservabilityIT.INFRA.resolveSibling("Makefile"));
    assertThat(makefile).contains("java @infra/jvm.options -jar $(JAR)");
  }
}
