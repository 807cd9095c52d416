package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ceiling: {@code pgbench} running the minimum durable work of one command, a transaction that
 * inserts a dedup row (primary key: a random command ID) and an event row (a minimal {@code
 * domain_event_entry}: global position, aggregate and sequence unique, payload), on the same
 * PostgreSQL server.
 */
final class Pgbench {

  static final String SCRIPT =
      "BEGIN;\n"
          + "INSERT INTO bench_dedup (command_id, payload_hash, applied_at)"
          + " VALUES (gen_random_uuid(), md5(random()::text), now());\n"
          + "INSERT INTO bench_events (event_id, aggregate_id, seq, type, payload, time_stamp)"
          + " VALUES (gen_random_uuid(), gen_random_uuid()::text, 0, 'OrderPlaced',"
          + " '{\"customerId\":\"c-1\",\"amountCents\":1500}', now());\n"
          + "END;\n";

  private static final Pattern TPS =
      Pattern.compile("tps = ([0-9.]+) \\((?:without initial connection time|excluding)");
  private static final Pattern TRANSACTIONS =
      Pattern.compile("number of transactions actually processed: ([0-9]+)");

  /** What one run measured: its rate, and the transactions it committed. */
  record Result(double tps, long transactions) {}

  private Pgbench() {}

  static void createTables(PostgresEndpoint db) {
    Bench.execute(
        db,
        "CREATE TABLE IF NOT EXISTS bench_dedup (command_id UUID PRIMARY KEY,"
            + " payload_hash TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)",
        "CREATE TABLE IF NOT EXISTS bench_events (global_index BIGSERIAL PRIMARY KEY,"
            + " event_id UUID NOT NULL UNIQUE, aggregate_id TEXT NOT NULL, seq BIGINT NOT NULL,"
            + " type TEXT NOT NULL, payload JSONB NOT NULL, time_stamp TIMESTAMPTZ NOT NULL,"
            + " UNIQUE (aggregate_id, seq))");
  }

  /** What pgbench's report says, or why it cannot be trusted (a failed run, an unknown format). */
  static Result parse(int exit, String out) {
    Matcher tps = TPS.matcher(out);
    Matcher transactions = TRANSACTIONS.matcher(out);
    if (exit != 0 || !tps.find() || !transactions.find()) {
      throw new IllegalStateException("pgbench failed (exit " + exit + "): " + out);
    }
    return new Result(Double.parseDouble(tps.group(1)), Long.parseLong(transactions.group(1)));
  }

  /** Runs pgbench for {@code seconds}. */
  static Result run(Bench bench, PostgresEndpoint db, int clients, int seconds) {
    BenchSettings s = bench.settings;
    try {
      Files.createDirectories(bench.logs);
      Path script = bench.logs.resolve("pgbench.sql");
      Files.writeString(script, SCRIPT);
      Path log = bench.logs.resolve("pgbench-" + System.nanoTime() + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(
              List.of(
                  s.pgbench(),
                  "-n",
                  "-c",
                  Integer.toString(clients),
                  "-j",
                  Integer.toString(Math.min(clients, Runtime.getRuntime().availableProcessors())),
                  "-T",
                  Integer.toString(seconds),
                  "-f",
                  script.toString(),
                  "-h",
                  db.host(),
                  "-p",
                  Integer.toString(db.port()),
                  "-U",
                  db.user(),
                  db.database()));
      pb.environment().put("PGPASSWORD", db.password());
      pb.redirectErrorStream(true);
      pb.redirectOutput(log.toFile());
      int exit = pb.start().waitFor();
      return parse(exit, Files.readString(log, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + s.pgbench(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
