package io.slotkeeper.bench;

import io.slotkeeper.platform.config.PostgresEndpoint;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How long surviving instances took to take over the schedules of a killed one, read from the slot
 * ledger ({@code job_runs}): the schedules it held and their first fires after the kill.
 */
final class Takeover {

  private Takeover() {}

  /**
   * The first slot at or after the kill of a schedule whose last fire before it was the victim's.
   */
  record FirstFire(Instant nominal, Instant firedAt, long lagMs) {}

  static List<FirstFire> firstFiresAfter(
      PostgresEndpoint db, String prefix, String victim, Instant killed) {
    String sql =
        "WITH held AS (SELECT DISTINCT ON (job) job, instance_id FROM job_runs WHERE job LIKE '"
            + prefix
            + "%' AND nominal < '"
            + killed
            + "' AND fired_at IS NOT NULL ORDER BY job, nominal DESC)"
            + " SELECT DISTINCT ON (r.job) r.nominal, r.fired_at, r.lag_ms FROM job_runs r"
            + " JOIN held h ON h.job = r.job WHERE h.instance_id = '"
            + victim
            + "' AND r.nominal >= '"
            + killed
            + "' AND r.fired_at IS NOT NULL ORDER BY r.job, r.nominal";
    List<FirstFire> out = new ArrayList<>();
    try (Connection c = Bench.connect(db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(
            new FirstFire(
                rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant(), rs.getLong(3)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return out;
  }

  /**
   * How long after the kill the survivors took the killed instance's schedules over, from each such
   * schedule's first fire after the kill. A slot that fell due before its schedule was taken over
   * fires late, at the takeover: its fire time less the kill is that schedule's takeover, and the
   * largest of those is the answer. When no slot was late, every schedule was taken over before its
   * first slot, so the earliest first fire bounds the takeover from above. NaN when the killed
   * instance held no schedule.
   */
  static double seconds(Instant killed, List<FirstFire> firsts) {
    Comparator<FirstFire> byFire = Comparator.comparing(FirstFire::firedAt);
    return firsts.stream()
        .filter(f -> f.lagMs() > 1000)
        .max(byFire)
        .or(() -> firsts.stream().min(byFire))
        .map(f -> Duration.between(killed, f.firedAt()).toMillis() / 1000.0)
        .orElse(Double.NaN);
  }
}
