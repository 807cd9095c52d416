package io.slotkeeper.chaos;

import io.slotkeeper.events.StreamIds;
import io.slotkeeper.platform.config.PostgresEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The verdict's checks, read from the store with plain JDBC. */
final class Checks {

  /** One check: passed or not, its figures, and up to 40 examples of violations. */
  record Check(String name, boolean passed, Map<String, Object> figures, List<String> violations) {

    static Check of(String name, Map<String, Object> figures, List<String> violations) {
      return new Check(
          name,
          violations.isEmpty(),
          figures,
          violations.size() > 40 ? violations.subList(0, 40) : violations);
    }
  }

  /** The read tables a fresh replay must reproduce, and the processors that write them. */
  static final List<String> READ_TABLES =
      List.of("orders", "inventory", "inventory_log", "refunds", "job_runs");

  static final List<String> PROJECTIONS =
      List.of(
          "orders-projection", "inventory-projection", "refunds-projection", "job-runs-projection");

  private final PostgresEndpoint pg;

  Checks(PostgresEndpoint pg) {
    this.pg = pg;
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
  }

  /** (1) Every slot of {@code job} in [from, to] has one row, COMPLETED or MISSED. */
  Check slots(String job, Instant from, Instant to) throws SQLException {
    Map<Long, String> status = new HashMap<>();
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT nominal, status FROM job_runs WHERE job = ? AND nominal BETWEEN ? AND ?")) {
      st.setString(1, job);
      st.setTimestamp(2, Timestamp.from(from));
      st.setTimestamp(3, Timestamp.from(to));
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          status.put(rs.getTimestamp(1).toInstant().getEpochSecond(), rs.getString(2));
        }
      }
    }
    Map<String, Integer> counts = new TreeMap<>();
    List<String> violations = new ArrayList<>();
    long expected = 0;
    for (long s = from.getEpochSecond() + 1; s <= to.getEpochSecond(); s++) {
      expected++;
      String st = status.get(s);
      counts.merge(st == null ? "ABSENT" : st, 1, Integer::sum);
      if (!"COMPLETED".equals(st) && !"MISSED".equals(st)) {
        violations.add(Instant.ofEpochSecond(s) + ": " + (st == null ? "no job_runs row" : st));
      }
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("window", from + " .. " + to);
    figures.put("slots", expected);
    figures.put("byStatus", counts);
    return Check.of("every slot exactly one completed run or a recorded miss", figures, violations);
  }

  /**
   * No job stalled after the faults: between {@code from} (every fault over, every instance ready)
   * and {@code to}, each job fired at least once and never went longer than its bound (plus a
   * second for the measurement) without a fire.
   */
  Check noStall(Map<String, Duration> bounds, Instant from, Instant to) throws SQLException {
    List<String> violations = new ArrayList<>();
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("window", from + " .. " + to);
    for (Map.Entry<String, Duration> job : new TreeMap<>(bounds).entrySet()) {
      List<Instant> fires = new ArrayList<>();
      try (Connection c = connect();
          PreparedStatement st =
              c.prepareStatement(
                  "SELECT fired_at FROM job_runs WHERE job = ? AND fired_at BETWEEN ? AND ?"
                      + " ORDER BY fired_at")) {
        st.setString(1, job.getKey());
        st.setTimestamp(2, Timestamp.from(from));
        st.setTimestamp(3, Timestamp.from(to));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            fires.add(rs.getTimestamp(1).toInstant());
          }
        }
      }
      Duration longest = Duration.ZERO;
      Instant previous = from;
      for (Instant at : fires) {
        longest = max(longest, Duration.between(previous, at));
        previous = at;
      }
      longest = max(longest, Duration.between(previous, to));
      figures.put(job.getKey(), fires.size() + " fires, longest gap " + longest.toMillis() + " ms");
      if (fires.isEmpty() || longest.compareTo(job.getValue().plusSeconds(1)) > 0) {
        violations.add(
            job.getKey()
                + ": "
                + fires.size()
                + " fires, "
                + longest.toMillis()
                + " ms without one (bound "
                + job.getValue().toMillis()
                + " ms)");
      }
    }
    return Check.of("no job stalled after the faults ended", figures, violations);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** (2) No effect applied twice: inventory log per command, reports per slot, refunds paid. */
  Check effectsOnce(String job, Instant upTo) throws SQLException {
    List<String> violations = new ArrayList<>();
    Map<String, Object> figures = new LinkedHashMap<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      figures.put("inventoryLogRows", single(st, "SELECT count(*) FROM inventory_log"));
      try (ResultSet rs =
          st.executeQuery(
              "SELECT command_id, count(*) FROM inventory_log WHERE command_id IS NOT NULL"
                  + " GROUP BY command_id HAVING count(*) > 1")) {
        while (rs.next()) {
          violations.add("inventory_log: command " + rs.getString(1) + " " + rs.getLong(2) + "×");
        }
      }
      // A report belongs to a completed slot, and every completed slot has its report (slots up to
      // the window's end: a slot firing while this runs has its report before its completion).
      String until = " AND nominal <= '" + upTo + "'";
      figures.put(
          "reports", single(st, "SELECT count(*) FROM reports WHERE job = '" + job + "'" + until));
      figures.put(
          "completedRuns",
          single(
              st,
              "SELECT count(*) FROM job_runs WHERE job = '"
                  + job
                  + "' AND status = 'COMPLETED'"
                  + until));
      try (ResultSet rs =
          st.executeQuery(
              "SELECT coalesce(r.slot_id, j.slot_id), r.slot_id IS NOT NULL, j.status"
                  + " FROM (SELECT * FROM reports WHERE job = '"
                  + job
                  + "'"
                  + until
                  + ") r FULL JOIN (SELECT * FROM job_runs WHERE job = '"
                  + job
                  + "' AND status = 'COMPLETED'"
                  + until
                  + ") j ON r.slot_id = j.slot_id"
                  + " WHERE r.slot_id IS NULL OR j.slot_id IS NULL")) {
        while (rs.next()) {
          violations.add(
              rs.getBoolean(2)
                  ? "report of slot " + rs.getString(1) + " whose run is not COMPLETED"
                  : "COMPLETED slot " + rs.getString(1) + " without a report");
        }
      }
      String refundId = "convert_from(payload, 'UTF8')::jsonb ->> 'refundId'";
      figures.put(
          "refundsIssued",
          single(
              st,
              "SELECT count(*) FROM domain_event_entry WHERE payload_type LIKE '%RefundIssued'"));
      try (ResultSet rs =
          st.executeQuery(
              "SELECT "
                  + refundId
                  + ", count(*) FROM domain_event_entry WHERE payload_type LIKE '%RefundIssued'"
                  + " GROUP BY 1 HAVING count(*) > 1")) {
        while (rs.next()) {
          violations.add("refund " + rs.getString(1) + " issued " + rs.getLong(2) + "×");
        }
      }
    }
    return Check.of("no effect applied twice", figures, violations);
  }

  /** (3) Every acknowledged command is in the store once; every acknowledged order exists once. */
  Check acknowledged(List<Load.Ack> acks) throws SQLException {
    Set<String> ledger = new HashSet<>();
    Map<String, Long> placed = new HashMap<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT command_id FROM command_ledger")) {
        while (rs.next()) {
          ledger.add(rs.getString(1));
        }
      }
      try (ResultSet rs =
          st.executeQuery(
              "SELECT aggregate_identifier, count(*) FROM domain_event_entry"
                  + " WHERE payload_type LIKE '%OrderPlaced' GROUP BY 1")) {
        while (rs.next()) {
          placed.put(StreamIds.businessId(rs.getString(1)), rs.getLong(2));
        }
      }
    }
    List<String> violations = new ArrayList<>();
    Map<String, Integer> byOp = new TreeMap<>();
    for (Load.Ack a : acks) {
      byOp.merge(a.op(), 1, Integer::sum);
      if (!ledger.contains(a.commandId())) {
        violations.add(a.op() + " key " + a.key() + ": command " + a.commandId() + " not stored");
      }
      if (Load.PLACE.equals(a.op()) && placed.getOrDefault(a.aggregateId(), 0L) != 1L) {
        violations.add(
            "order "
                + a.aggregateId()
                + " (key "
                + a.key()
                + ") has "
                + placed.getOrDefault(a.aggregateId(), 0L)
                + " OrderPlaced events");
      }
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("acknowledged", acks.size());
    figures.put("byOperation", byOp);
    return Check.of("every acknowledged command is in the store", figures, violations);
  }

  /** The positions of {@code domain_event_entry} up to {@code upTo}, ascending. */
  List<Long> positions(long upTo) throws SQLException {
    List<Long> out = new ArrayList<>();
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT global_index FROM domain_event_entry WHERE global_index <= ?"
                    + " ORDER BY global_index")) {
      st.setLong(1, upTo);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
    }
    return out;
  }

  long maxPosition() throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      return single(st, "SELECT coalesce(max(global_index), 0) FROM domain_event_entry");
    }
  }

  /** (4) Each subscriber saw exactly the stored events up to {@code upTo}, once each, in order. */
  Check subscribers(List<Subscriber> subscribers, long upTo) throws SQLException {
    List<Long> stored = positions(upTo);
    List<String> violations = new ArrayList<>();
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("storedEvents", stored.size());
    figures.put("upToPosition", upTo);
    for (Subscriber s : subscribers) {
      List<Long> seen = s.received().stream().filter(p -> p <= upTo).toList();
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("received", seen.size());
      f.put("reconnects", s.reconnects.get());
      figures.put(s.name(), f);
      if (seen.equals(stored)) {
        continue;
      }
      Set<Long> seenSet = new HashSet<>(seen);
      long dups = seen.size() - seenSet.size();
      long outOfOrder = 0;
      for (int i = 1; i < seen.size(); i++) {
        if (seen.get(i) <= seen.get(i - 1)) {
          outOfOrder++;
        }
      }
      List<Long> missing = stored.stream().filter(p -> !seenSet.contains(p)).toList();
      Set<Long> storedSet = new HashSet<>(stored);
      List<Long> extra = seenSet.stream().filter(p -> !storedSet.contains(p)).sorted().toList();
      f.put("duplicates", dups);
      f.put("outOfOrder", outOfOrder);
      f.put("missing", missing.size());
      f.put("notInStore", extra.size());
      violations.add(
          s.name()
              + ": "
              + dups
              + " duplicates, "
              + outOfOrder
              + " out of order, missing "
              + missing.subList(0, Math.min(20, missing.size()))
              + (missing.size() > 20 ? "…" : "")
              + ", not in store "
              + extra.subList(0, Math.min(20, extra.size())));
    }
    return Check.of("every subscriber saw every event once, in order", figures, violations);
  }

  /**
   * Content of the read tables: rows count and an MD5 of the sorted rows without their wall-clock
   * columns ({@code created_at}, {@code updated_at}: when the projection wrote, not what).
   */
  Map<String, String> readTables() throws SQLException {
    Map<String, String> out = new LinkedHashMap<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String table : READ_TABLES) {
        try (ResultSet rs =
            st.executeQuery(
                "SELECT count(*), coalesce(md5(string_agg(r, E'\\n' ORDER BY r)), '-') FROM"
                    + " (SELECT (to_jsonb(t) - 'updated_at' - 'created_at')::text AS r FROM "
                    + table
                    + " t) s")) {
          rs.next();
          out.put(table, rs.getLong(1) + " rows " + rs.getString(2));
        }
      }
    }
    return out;
  }

  /**
   * Keeps a copy of each read table ({@code chaos_live_<table>}) to show a replay's differences.
   */
  void keepLiveCopies() throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String table : READ_TABLES) {
        st.execute("DROP TABLE IF EXISTS chaos_live_" + table);
        st.execute("CREATE TABLE chaos_live_" + table + " AS SELECT * FROM " + table);
      }
    }
  }

  /** Up to five rows only in the live copy and five only in the replayed table. */
  List<String> differences(String table) throws SQLException {
    String live = "(SELECT (to_jsonb(t) - 'updated_at' - 'created_at')::text AS r FROM chaos_live_";
    String now = "(SELECT (to_jsonb(t) - 'updated_at' - 'created_at')::text AS r FROM ";
    List<String> out = new ArrayList<>();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String[] side :
          List.of(
              new String[] {"live only: ", live + table + " t)", now + table + " t)"},
              new String[] {"replay only: ", now + table + " t)", live + table + " t)"})) {
        try (ResultSet rs =
            st.executeQuery(
                "SELECT r FROM " + side[1] + " a EXCEPT SELECT r FROM " + side[2] + " b LIMIT 5")) {
          while (rs.next()) {
            out.add(table + " " + side[0] + rs.getString(1));
          }
        }
      }
    }
    return out;
  }

  /** Clears the read tables and the projections' tokens, so the next start replays the store. */
  void resetProjections() throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      st.executeUpdate(
          "DELETE FROM token_entry WHERE processor_name IN ('"
              + String.join("', '", PROJECTIONS)
              + "')");
      for (String table : READ_TABLES) {
        st.executeUpdate("DELETE FROM " + table);
      }
      c.commit();
    }
  }

  private static long single(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
