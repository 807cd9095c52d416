package io.slotkeeper.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One slotkeeper process that the chaos run started: {@code java -jar slotkeeper.jar} with its own
 * instance ID and ports. Only this process is ever signalled (by its PID), never anything else.
 */
final class Instance {

  final String id;
  final int httpPort;
  final int grpcPort;
  private final Path jar;
  private final Path log;
  private final Map<String, String> env;
  private Process process;
  private volatile boolean paused;
  private volatile boolean down;
  private int starts;

  Instance(String id, int httpPort, int grpcPort, Path jar, Path log, Map<String, String> env) {
    this.id = id;
    this.httpPort = httpPort;
    this.grpcPort = grpcPort;
    this.jar = jar;
    this.log = log;
    this.env = env;
  }

  /** Starts the process (timers on or off); its output is appended to its log file. */
  synchronized void start(boolean timers) {
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                "java",
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                jar.toString()));
    pb.environment().putAll(env);
    pb.environment().put("SLOTKEEPER_INSTANCE_ID", id);
    pb.environment().put("SLOTKEEPER_HTTP_PORT", Integer.toString(httpPort));
    pb.environment().put("SLOTKEEPER_GRPC_PORT", Integer.toString(grpcPort));
    pb.environment().put("SLOTKEEPER_TIMERS_ENABLED", Boolean.toString(timers));
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + id, e);
    }
    starts++;
    paused = false;
    down = false;
  }

  synchronized int starts() {
    return starts;
  }

  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** Exit code of a process that ended, or null while it runs. */
  synchronized Integer exitCode() {
    return process == null || process.isAlive() ? null : process.exitValue();
  }

  boolean paused() {
    return paused;
  }

  /** Stopped on purpose (killed and not yet restarted, or shut down): not to be revived. */
  boolean down() {
    return down;
  }

  /** SIGKILL (what {@link Process#destroyForcibly()} sends on Linux). */
  synchronized void kill() {
    down = true;
    if (process != null) {
      process.destroyForcibly();
      waitFor(10);
    }
  }

  /** SIGTERM and wait for the shutdown hook, then SIGKILL if it hangs. */
  synchronized void stop() {
    down = true;
    if (process != null && process.isAlive()) {
      if (paused) {
        signal("CONT");
      }
      process.destroy();
      if (!waitFor(30)) {
        process.destroyForcibly();
        waitFor(10);
      }
    }
  }

  void pause() {
    signal("STOP");
    paused = true;
  }

  void resume() {
    signal("CONT");
    paused = false;
  }

  private void signal(String signal) {
    long pid = pid();
    if (pid <= 0) {
      return;
    }
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
          .inheritIO()
          .start()
          .waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean waitFor(int seconds) {
    try {
      return process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** GET {@code path} answers 200 within a second. */
  boolean answers(String path) {
    try {
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + httpPort + path).toURL().openConnection();
      c.setConnectTimeout(1000);
      c.setReadTimeout(2000);
      int status = c.getResponseCode();
      c.disconnect();
      return status == 200;
    } catch (IOException e) {
      return false;
    }
  }

  /** Waits until {@code /health/ready} answers 200; false after the timeout or when it exited. */
  boolean awaitReady(long timeoutMillis) {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    while (System.currentTimeMillis() < deadline) {
      if (!alive()) {
        return false;
      }
      if (answers("/health/ready")) {
        return true;
      }
      Chaos.sleep(500);
    }
    return false;
  }

  String base() {
    return "http://127.0.0.1:" + httpPort;
  }

  @Override
  public String toString() {
    return id + "(pid " + pid() + ")";
  }
}
