package io.slotkeeper.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A JVM the benchmark starts as a child process (the service, or the baseline server): its output
 * goes to a log file, readiness is an HTTP GET answering 200, and its peak resident set size is the
 * kernel's high-water mark ({@code VmHWM} in {@code /proc/<pid>/status}).
 */
final class ChildProcess implements AutoCloseable {

  private final Process process;
  private final String name;
  private final long launchedNanos = System.nanoTime();
  private long readyNanos;

  private ChildProcess(Process process, String name) {
    this.process = process;
    this.name = name;
  }

  /**
   * Starts {@code java <jvmOptions> <args>} with the environment added to this one's; {@code
   * BENCH_SERVICE_JVM_OPTS} go between the two.
   */
  static ChildProcess start(
      String name,
      List<String> jvmOptions,
      List<String> javaArgs,
      Map<String, String> env,
      Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    // Extra JVM options for the children only (e.g. a JFR recording while profiling a phase).
    String extra = System.getenv("BENCH_SERVICE_JVM_OPTS");
    if (extra != null && !extra.isBlank()) {
      command.addAll(List.of(extra.trim().split("\\s+")));
    }
    command.addAll(javaArgs);
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    try {
      Files.createDirectories(log.getParent());
      pb.redirectOutput(log.toFile());
      Process process = pb.start();
      // an interrupted benchmark (Ctrl-C) leaves no service behind
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
      return new ChildProcess(process, name);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  /** Waits until {@code url} answers 200; fails when the process dies or the timeout passes. */
  ChildProcess awaitReady(String url, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            name + " exited with " + process.exitValue() + " before it was ready (see its log)");
      }
      try {
        HttpResponse<Void> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          readyNanos = System.nanoTime();
          return this;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      Bench.sleep(100);
    }
    throw new IllegalStateException(name + " not ready after " + timeout);
  }

  long launchedNanos() {
    return launchedNanos;
  }

  /** Seconds from launch to ready. */
  double startSeconds() {
    return (readyNanos - launchedNanos) / 1e9;
  }

  /** The operating system's process ID. */
  long pid() {
    return process.pid();
  }

  /** Peak resident set size so far in MiB, or NaN when /proc does not say. */
  double peakRssMiB() {
    try {
      for (String line :
          Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux, or the process is gone
    }
    return Double.NaN;
  }

  /** SIGKILL at once, as a crash would end it (no shutdown hook runs, no lease is released). */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM, then SIGKILL after 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** A free TCP port on this machine. */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
