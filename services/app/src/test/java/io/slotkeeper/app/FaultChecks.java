package io.slotkeeper.app;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.operations.inventory.InventoryOperations;
import io.slotkeeper.operations.orders.OrderOperations;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.config.RedisEndpoint;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the fault property checks, read with plain JDBC straight from PostgreSQL (not through the
 * proxy). Each method returns its violations, empty when the property holds.
 */
final class FaultChecks {

  /** The read tables a replay must reproduce: each one's key and position of its last event. */
  static final Map<String, String[]> READ_TABLES =
      Map.of(
          "orders", new String[] {"order_id", "last_position"},
          "inventory", new String[] {"sku", "last_position"},
          "inventory_log", new String[] {"position", "position"},
          "refunds", new String[] {"refund_id", "last_position"},
          "job_runs", new String[] {"slot_id", "last_position"});

  static final List<String> PROJECTIONS =
      List.of(
          "orders-projection", "inventory-projection", "refunds-projection", "job-runs-projection");

  private static final String PAYLOAD = "convert_from(payload, 'UTF8')::jsonb";
  private static final String COMMAND_ID = "convert_from(meta_data, 'UTF8')::jsonb ->> 'commandId'";

  private final PostgresEndpoint db;

  FaultChecks(PostgresEndpoint db) {
    this.db = db;
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
  }

  /**
   * When {@code job} first fired after {@code after}, and when it last fired (either null), from
   * the slot ledger's events (the store, not a read table that may lag): a {@code SlotFired}, or a
   * {@code SlotSkipped} by the job's overlap policy (its previous run still running: the timer is
   * deciding, the run is slow).
   */
  record Fires(Instant firstAfter, Instant last) {}

  Fires fires(String job, Instant after) throws SQLException {
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT min(at) FILTER (WHERE at > ?), max(at) FROM (SELECT"
                    + " time_stamp::timestamptz AS at FROM domain_event_entry WHERE (payload_type"
                    + " LIKE '%SlotFired' OR (payload_type LIKE '%SlotSkipped' AND "
                    + PAYLOAD
                    + " ->> 'reason' NOT LIKE '%paused%')) AND "
                    + PAYLOAD
                    + " ->> 'job' = ?) f")) {
      st.setTimestamp(1, Timestamp.from(after));
      st.setString(2, job);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        Timestamp first = rs.getTimestamp(1);
        Timestamp last = rs.getTimestamp(2);
        return new Fires(
            first == null ? null : first.toInstant(), last == null ? null : last.toInstant());
      }
    }
  }

  /** How many slots of the jobs the ledger's read table shows FIRED (a run going on). */
  long firedSlots(List<String> jobs) throws SQLException {
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT count(*) FROM job_runs WHERE status = 'FIRED' AND job = ANY (?)")) {
      st.setArray(1, c.createArrayOf("varchar", jobs.toArray()));
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The store's highest global position (0 when empty). */
  long head() throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT coalesce(max(global_index), 0) FROM domain_event_entry")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The store position of the newest entry of the Redis stream {@code key} (0 when empty), read
   * over RESP straight from Redis.
   */
  static long streamPosition(RedisEndpoint redis, String key) throws IOException {
    try (Socket s = new Socket(redis.host(), redis.port())) {
      s.setSoTimeout(5_000);
      List<String> args = List.of("XREVRANGE", key, "+", "-", "COUNT", "1");
      StringBuilder cmd = new StringBuilder("*" + args.size() + "\r\n");
      for (String arg : args) {
        cmd.append('$').append(arg.length()).append("\r\n").append(arg).append("\r\n");
      }
      s.getOutputStream().write(cmd.toString().getBytes(StandardCharsets.UTF_8));
      byte[] buf = new byte[64 * 1024];
      int n = s.getInputStream().read(buf);
      Matcher m =
          Pattern.compile("position\r\n\\$\\d+\r\n(\\d+)")
              .matcher(new String(buf, 0, Math.max(0, n), StandardCharsets.UTF_8));
      return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
  }

  /** Every acknowledged command is in the command ledger; every acknowledged order placed once. */
  List<String> acknowledgedStored(Collection<FaultLoad.Ack> acks) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect();
        PreparedStatement unstored =
            c.prepareStatement(
                "SELECT id FROM unnest(?::text[]) id"
                    + " WHERE NOT EXISTS (SELECT 1 FROM command_ledger WHERE command_id = id)");
        PreparedStatement placements =
            c.prepareStatement(
                "SELECT id, (SELECT count(*) FROM domain_event_entry WHERE aggregate_identifier ="
                    + " id AND payload_type LIKE '%OrderPlaced') FROM unnest(?::text[]) id")) {
      unstored.setArray(
          1, c.createArrayOf("text", acks.stream().map(FaultLoad.Ack::commandId).toArray()));
      try (ResultSet rs = unstored.executeQuery()) {
        while (rs.next()) {
          out.add("acknowledged command " + rs.getString(1) + " is not in the command ledger");
        }
      }
      Object[] orders =
          acks.stream()
              .filter(a -> OrderOperations.PLACE.equals(a.op()))
              .map(a -> StreamIds.order(a.id()))
              .toArray();
      placements.setArray(1, c.createArrayOf("text", orders));
      try (ResultSet rs = placements.executeQuery()) {
        while (rs.next()) {
          if (rs.getLong(2) != 1) {
            out.add("acknowledged " + rs.getString(1) + " has " + rs.getLong(2) + " OrderPlaced");
          }
        }
      }
    }
    return out;
  }

  /**
   * No effect twice, in the store: no command ID on two events of one type in one stream (every
   * inventory change, refund request and payout, slot completion is one event of one command), no
   * refund paid twice, and the stock received is exactly what was acknowledged (every receipt is
   * retried to an answer).
   */
  List<String> effectsOnce(Collection<FaultLoad.Ack> allAcks) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      // A refund is paid once whoever pays it: its key is the refund, not the paying command.
      String key =
          "CASE WHEN payload_type LIKE '%RefundIssued' THEN 'refund ' || ("
              + PAYLOAD
              + " ->> 'refundId') ELSE 'command ' || ("
              + COMMAND_ID
              + ") END";
      try (ResultSet rs =
          st.executeQuery(
              "SELECT aggregate_identifier, payload_type, k, count(*) FROM (SELECT"
                  + " aggregate_identifier, payload_type, "
                  + key
                  + " AS k FROM domain_event_entry) e WHERE k IS NOT NULL GROUP BY 1, 2, 3"
                  + " HAVING count(*) > 1 LIMIT 20")) {
        while (rs.next()) {
          out.add(
              rs.getString(2)
                  + " of "
                  + rs.getString(1)
                  + " applied "
                  + rs.getLong(4)
                  + "× for "
                  + rs.getString(3));
        }
      }
      Map<String, Long> received = new LinkedHashMap<>();
      try (ResultSet rs =
          st.executeQuery(
              "SELECT "
                  + PAYLOAD
                  + " ->> 'sku', sum(("
                  + PAYLOAD
                  + " ->> 'qty')::bigint) FROM domain_event_entry"
                  + " WHERE payload_type LIKE '%StockReceived' GROUP BY 1")) {
        while (rs.next()) {
          received.put(rs.getString(1), rs.getLong(2));
        }
      }
      Map<String, Long> acknowledged = new LinkedHashMap<>();
      allAcks.stream()
          .filter(a -> InventoryOperations.RECEIVE.equals(a.op()))
          .forEach(a -> acknowledged.merge(a.id(), (long) a.qty(), Long::sum));
      for (String sku : FaultLoad.SKUS) {
        long stored = received.getOrDefault(sku, 0L);
        long acked = acknowledged.getOrDefault(sku, 0L);
        if (stored != acked) {
          out.add(
              "stock of " + sku + ": received " + stored + " in the store, " + acked + " acked");
        }
      }
    }
    return out;
  }

  /**
   * A report per completed slot of the report job and no report of a slot not completed (checked
   * while the jobs are paused: a slot writes its report before its completion).
   */
  List<String> reportsMatchRuns(String job) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT coalesce(r.slot_id, j.slot_id), r.slot_id IS NULL, j.status || ' after '"
                    + " || j.attempts || ' attempts: ' || coalesce(j.error, '-') FROM"
                    + " (SELECT slot_id FROM reports WHERE job = ?) r FULL JOIN"
                    + " (SELECT * FROM job_runs WHERE job = ?) j ON r.slot_id = j.slot_id"
                    + " WHERE (r.slot_id IS NULL AND j.status = 'COMPLETED')"
                    + " OR (r.slot_id IS NOT NULL AND j.status IS DISTINCT FROM 'COMPLETED')"
                    + " LIMIT 20")) {
      st.setString(1, job);
      st.setString(2, job);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(
              rs.getBoolean(2)
                  ? "completed slot without its report: " + rs.getString(1)
                  : "report of slot " + rs.getString(1) + ", which is " + rs.getString(3));
        }
      }
    }
    return out;
  }

  /**
   * Copies each read table ({@code fp_live_<table>}: key, position, row) in one snapshot and
   * returns the store's head in that snapshot: every copied row is at or below it.
   */
  long keepLiveCopies() throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      long head;
      try (ResultSet rs =
          st.executeQuery("SELECT coalesce(max(global_index), 0) FROM domain_event_entry")) {
        rs.next();
        head = rs.getLong(1);
      }
      for (Map.Entry<String, String[]> t : READ_TABLES.entrySet()) {
        st.execute("DROP TABLE IF EXISTS fp_live_" + t.getKey());
        st.execute("CREATE TABLE fp_live_" + t.getKey() + " AS " + rows(t.getKey()));
      }
      c.commit();
      return head;
    }
  }

  /**
   * Up to three rows of each read table only in the live copy and three only in the table now (a
   * replay), comparing the rows at or below {@code head}; a row the replay has moved past {@code
   * head} (events stored after the copy) is not compared. Empty when they are equal.
   */
  List<String> replayDifferences(long head) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String table : READ_TABLES.keySet()) {
        // Events at or below the head that this table's projection had not reached when the copy
        // was taken (paused jobs still record skipped slots meanwhile) are not compared either.
        long bound = head;
        try (ResultSet rs = st.executeQuery("SELECT max(pos) FROM fp_live_" + table)) {
          if (rs.next() && rs.getObject(1) != null) {
            bound = Math.min(head, rs.getLong(1));
          }
        }
        String now = "SELECT row FROM (" + rows(table) + ") n WHERE pos <= " + bound;
        String live =
            "SELECT row FROM fp_live_"
                + table
                + " WHERE key NOT IN (SELECT key FROM ("
                + rows(table)
                + ") m WHERE pos > "
                + bound
                + ")";
        for (String[] q :
            List.of(
                new String[] {"live only: ", live, now},
                new String[] {"replay only: ", now, live})) {
          try (ResultSet rs = st.executeQuery("(" + q[1] + ") EXCEPT (" + q[2] + ") LIMIT 3")) {
            while (rs.next()) {
              out.add(table + " " + q[0] + rs.getString(1));
            }
          }
        }
      }
    }
    return out;
  }

  /**
   * The rows of {@code table} as {@code key, pos, row} (its JSON without the columns of wall-clock
   * time), a query.
   */
  private static String rows(String table) {
    String[] keyAndPosition = READ_TABLES.get(table);
    return "SELECT "
        + keyAndPosition[0]
        + "::text AS key, "
        + keyAndPosition[1]
        + " AS pos, (to_jsonb(t) - 'created_at' - 'updated_at')::text AS row FROM "
        + table
        + " t";
  }
}
