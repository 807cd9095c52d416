package io.slotkeeper.chaos;

import io.slotkeeper.events.DeterministicIds;
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
import java.util.Comparator;
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
    return Check.of(
        "every slot of " + job + " exactly one completed run or a recorded miss",
        figures,
        violations);
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

  /** A slot as the ledger shows it: its status and its last fire (null when never fired). */
  private record Run(String status, Instant firedAt) {}

  /** A key at the receiver: its effect (token and time; null: none) and its recorded answer. */
  private record Effect(String key, Instant slot, Long token, Instant at, Integer recorded) {}

  /**
   * (7) The HTTP schedule's receiver counted one effect per slot: each effect under the slot's
   * deterministic key, with the key's recorded answer (written in one transaction); every COMPLETED
   * slot of {@code job} with exactly one effect; no effect twice for a key (the ledger never ran
   * the effect for a key that had one). An effect whose slot is not COMPLETED is allowed only while
   * slotkeeper may still send the slot again: its last fire (for a slot the ledger does not show
   * yet, the effect's own time) less than {@code retryWindow} before this check; a MISSED or
   * SKIPPED slot never has one. And the outage of the receiver's database took effect: some
   * delivery was answered 503 because its transaction failed.
   */
  Check deliveries(String job, Receiver receiver, Duration retryWindow) throws SQLException {
    Instant now = Instant.now();
    // The ledger first: a COMPLETED slot's effect committed before its completion was recorded, so
    // it is among the effects read after.
    Map<Instant, Run> runs = new HashMap<>();
    Map<String, Long> attempts = new TreeMap<>();
    try (Connection c = connect()) {
      try (PreparedStatement st =
          c.prepareStatement("SELECT nominal, status, fired_at FROM job_runs WHERE job = ?")) {
        st.setString(1, job);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            Timestamp fired = rs.getTimestamp(3);
            runs.put(
                rs.getTimestamp(1).toInstant(),
                new Run(rs.getString(2), fired == null ? null : fired.toInstant()));
          }
        }
      }
      try (PreparedStatement st =
          c.prepareStatement(
              "SELECT outcome, count(*) FROM delivery_attempts WHERE schedule = ? GROUP BY 1")) {
        st.setString(1, job);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            attempts.put(rs.getString(1), rs.getLong(2));
          }
        }
      }
    }
    List<Effect> effects = effects(job);
    List<String> violations = new ArrayList<>();
    Map<Instant, List<String>> bySlot = new TreeMap<>();
    long inFlight = 0;
    for (Effect e : effects) {
      if (e.token() == null) {
        violations.add("key " + e.key() + " recorded (" + e.recorded() + ") without its effect");
        continue;
      }
      bySlot.computeIfAbsent(e.slot(), s -> new ArrayList<>()).add(e.key());
      if (e.recorded() == null) {
        violations.add("effect of key " + e.key() + " without the key's recorded answer");
      }
      String expected = DeterministicIds.forSlotCommand(job, e.slot(), "http");
      if (!expected.equals(e.key())) {
        violations.add(
            "effect of slot " + e.slot() + " under key " + e.key() + ", not " + expected);
      }
      Run run = runs.get(e.slot());
      String status = run == null ? "ABSENT" : run.status();
      if ("COMPLETED".equals(status)) {
        continue;
      }
      Instant last = run == null || run.firedAt() == null ? e.at() : run.firedAt();
      if (("FIRED".equals(status) || "FAILED".equals(status) || run == null)
          && last.isAfter(now.minus(retryWindow))) {
        inFlight++;
      } else {
        violations.add(
            "effect of slot "
                + e.slot()
                + " (token "
                + e.token()
                + ", at "
                + e.at()
                + ") whose run is "
                + status
                + (run == null || run.firedAt() == null ? "" : ", last fired " + run.firedAt()));
      }
    }
    bySlot.forEach(
        (slot, keys) -> {
          if (keys.size() > 1) {
            violations.add("slot " + slot + " has " + keys.size() + " effects: " + keys);
          }
        });
    long completed = 0;
    for (Map.Entry<Instant, Run> r : new TreeMap<>(runs).entrySet()) {
      if ("COMPLETED".equals(r.getValue().status())) {
        completed++;
        if (!bySlot.containsKey(r.getKey())) {
          violations.add("COMPLETED slot " + r.getKey() + " without an effect at the receiver");
        }
      }
    }
    if (receiver.notRecorded.get() == 0) {
      // as the PostgreSQL crash's check: a fault that silently did nothing must not pass
      violations.add(
          "no delivery was answered 503 by a failed transaction: the outage of the"
              + " receiver's database did not take effect");
    }
    long second = receiver.secondEffects.get();
    if (second > 0) {
      violations.add(
          "the ledger ran the effect "
              + second
              + " times for a key that had one (refused by chaos_effects' key)");
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("effects", bySlot.values().stream().mapToLong(List::size).sum());
    figures.put("completedRuns", completed);
    figures.put("effectsInFlight", inFlight);
    figures.put("secondEffectAttempts", second);
    figures.put("receiverAnswers", receiver.answersByStatus());
    figures.put("receiverMisbehaved", receiver.misbehaved());
    figures.put("receiverNotRecorded", receiver.notRecorded.get());
    figures.put("deliveryAttempts", attempts);
    return Check.of(
        "the receiver counted one effect per key and per COMPLETED slot of " + job,
        figures,
        violations);
  }

  /**
   * (8) The receiver's fence held: no effect under a fencing token lower than one the receiver had
   * accepted (an earlier effect, or an earlier 2xx answer, whose transaction had committed) before
   * the effect's transaction locked the schedule's fence; and no effect above the fence's highest.
   */
  Check fence(String job, Receiver receiver) throws SQLException {
    record Seen(Instant at, long token, boolean effect) {}
    List<Seen> seen = new ArrayList<>();
    for (Effect e : effects(job)) {
      if (e.token() != null) {
        seen.add(new Seen(e.at(), e.token(), true));
      }
    }
    long refused = 0;
    for (Receiver.Answer a : receiver.answers) {
      if (job.equals(a.schedule()) && a.status() >= 200 && a.status() < 300) {
        seen.add(new Seen(a.at(), a.token(), false));
      } else if (job.equals(a.schedule()) && a.status() == 409) {
        refused++;
      }
    }
    // Effects first among equal times: an answer noted at the same instant came after it.
    seen.sort(Comparator.comparing(Seen::at).thenComparing(x -> !x.effect()));
    List<String> violations = new ArrayList<>();
    long highestBefore = Long.MIN_VALUE;
    long lowest = Long.MAX_VALUE;
    long highest = Long.MIN_VALUE;
    for (Seen x : seen) {
      if (x.effect()) {
        lowest = Math.min(lowest, x.token());
        highest = Math.max(highest, x.token());
        if (x.token() < highestBefore) {
          violations.add(
              "effect at " + x.at() + " under token " + x.token() + " after " + highestBefore);
        }
      }
      highestBefore = Math.max(highestBefore, x.token());
    }
    long fence;
    try (Connection c = receiverConnection();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT coalesce(max(highest_token), -1) FROM receiver_fences WHERE schedule = ?")) {
      st.setString(1, job);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        fence = rs.getLong(1);
      }
    }
    if (highest > fence) {
      violations.add("an effect under token " + highest + " above the fence's highest " + fence);
    }
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("effectTokens", lowest > highest ? "none" : lowest + ".." + highest);
    figures.put("fence", fence);
    figures.put("refusedStale", refused);
    return Check.of(
        "no effect under a fencing token lower than one the receiver had accepted",
        figures,
        violations);
  }

  /** The receiver's keys of {@code job}: effects and recorded answers, read in one statement. */
  private List<Effect> effects(String job) throws SQLException {
    List<Effect> out = new ArrayList<>();
    try (Connection c = receiverConnection();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT coalesce(e.idem_key, d.idem_key), coalesce(e.slot, d.slot), e.token, e.at,"
                    + " d.status FROM (SELECT * FROM chaos_effects WHERE schedule = ?) e"
                    + " FULL JOIN (SELECT * FROM receiver_deliveries WHERE schedule = ?) d"
                    + " ON e.idem_key = d.idem_key")) {
      st.setString(1, job);
      st.setString(2, job);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          Timestamp at = rs.getTimestamp(4);
          out.add(
              new Effect(
                  rs.getString(1),
                  rs.getTimestamp(2).toInstant(),
                  (Long) rs.getObject(3),
                  at == null ? null : at.toInstant(),
                  (Integer) rs.getObject(5)));
        }
      }
    }
    return out;
  }

  private Connection receiverConnection() throws SQLException {
    return Receiver.connect(pg.withDatabase(Receiver.DATABASE), 10);
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
