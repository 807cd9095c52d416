package io.slotkeeper.business.jobs;

import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code daily-report}: writes one report per slot into {@code reports} (migration V12), covering
 * the {@code period} (default P1D, independent of the schedule) that ends at the slot's nominal
 * instant: [nominal - period, nominal).
 *
 * <p>The report is computed and inserted by one statement ({@code INSERT ... SELECT ... ON CONFLICT
 * (slot_id) DO NOTHING}), so it is one transaction on one snapshot, and the slot ID as primary key
 * makes a second run of the slot (retry, takeover, two instances) insert nothing.
 *
 * <p>Body: {@code orders.placed} (created in the period), {@code orders.revenueCents} (per
 * currency: COMPLETED orders whose last change, the completion, falls in the period), {@code
 * refunds.issued} and {@code refunds.amountCents} (per currency, issued in the period), {@code
 * stock.skus} and {@code stock.onHand}. Limits: the numbers come from the read tables, which lag
 * the event store by a moment; stock is the level when the report runs (no history is kept), so a
 * caught-up slot reports today's stock.
 *
 * <p>Counts: {@code reports}, 1 when this run wrote the report, 0 when it existed.
 */
public final class DailyReportJob implements JobHandler {

  public static final String NAME = "daily-report";

  private static final String INSERT =
      "WITH p AS (SELECT ?::timestamptz AS s, ?::timestamptz AS e),"
          + " placed AS (SELECT count(*) AS n FROM orders, p"
          + "   WHERE created_at >= p.s AND created_at < p.e),"
          + " revenue AS (SELECT currency, sum(amount_cents) AS cents FROM orders, p"
          + "   WHERE status = 'COMPLETED' AND updated_at >= p.s AND updated_at < p.e"
          + "   GROUP BY currency),"
          + " issued AS (SELECT o.currency, count(*) AS n, sum(r.amount_cents) AS cents"
          + "   FROM refunds r JOIN orders o ON o.order_id = r.order_id, p"
          + "   WHERE r.status = 'ISSUED' AND r.issued_at >= p.s AND r.issued_at < p.e"
          + "   GROUP BY o.currency)"
          + " INSERT INTO reports (slot_id, job, nominal, period_start, period_end, body)"
          + " SELECT ?, ?, p.e, p.s, p.e, jsonb_build_object("
          + "  'orders', jsonb_build_object('placed', (SELECT n FROM placed),"
          + "    'revenueCents', (SELECT coalesce(jsonb_object_agg(currency, cents), '{}')"
          + "      FROM revenue)),"
          + "  'refunds', jsonb_build_object('issued', (SELECT coalesce(sum(n), 0) FROM issued),"
          + "    'amountCents', (SELECT coalesce(jsonb_object_agg(currency, cents), '{}')"
          + "      FROM issued)),"
          + "  'stock', (SELECT jsonb_build_object('skus', count(*),"
          + "    'onHand', coalesce(sum(on_hand), 0)) FROM inventory))"
          + " FROM p ON CONFLICT (slot_id) DO NOTHING";

  private final JobSql sql;

  public DailyReportJob(DataSource readSide) {
    this.sql = new JobSql(readSide);
  }

  @Override
  public Map<String, Long> run(SlotRun run) {
    Duration period = JobParams.positiveDuration(run, "period", Duration.ofDays(1));
    Instant end = run.nominal();
    int inserted = sql.update(INSERT, end.minus(period), end, run.slotId(), run.job());
    return new Tally("reports").add("reports", inserted).toMap();
  }
}
