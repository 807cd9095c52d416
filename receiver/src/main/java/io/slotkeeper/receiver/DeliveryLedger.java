package io.slotkeeper.receiver;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * The receiver's plain JDBC API: a delivery's fence, key and effect in one PostgreSQL transaction,
 * so the effect happens once per Idempotency-Key and never for a stale lease holder.
 *
 * <p>In order, on the caller's connection: the schedule's fence row is raised to the delivery's
 * token and locked (a lower token than the highest seen is 409 and nothing changes); the key is
 * claimed ({@code ON CONFLICT DO NOTHING}: a concurrent attempt with the same key waits for the
 * claim's transaction and then finds the key taken); a taken key answers its recorded status and
 * body; a new one runs the team's {@link Effect} and records its answer, then commits. The fence is
 * checked before the key, so a stale holder is refused even for a slot that was already delivered.
 */
public final class DeliveryLedger {

  /** The deadline of each statement of a delivery, the effect's included, unless given. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(10);

  private static final String RAISE_FENCE =
      "INSERT INTO receiver_fences AS f (schedule, highest_token) VALUES (?, ?)"
          + " ON CONFLICT (schedule) DO UPDATE"
          + " SET highest_token = GREATEST(f.highest_token, EXCLUDED.highest_token)"
          + " RETURNING highest_token";
  private static final String CLAIM_KEY =
      "INSERT INTO receiver_deliveries (idem_key, schedule, slot) VALUES (?, ?, ?)"
          + " ON CONFLICT (idem_key) DO NOTHING";
  private static final String RECORDED =
      "SELECT schedule, slot, status, body FROM receiver_deliveries WHERE idem_key = ?";
  private static final String RECORD_ANSWER =
      "UPDATE receiver_deliveries SET status = ?, body = ? WHERE idem_key = ?";

  private final Duration statementTimeout;

  public DeliveryLedger() {
    this(DEFAULT_STATEMENT_TIMEOUT);
  }

  /** A ledger whose statements (the effect's too) each fail after {@code statementTimeout}. */
  public DeliveryLedger(Duration statementTimeout) {
    if (statementTimeout.isNegative() || statementTimeout.isZero()) {
      throw new IllegalArgumentException("the statement timeout must be positive");
    }
    this.statementTimeout = statementTimeout;
  }

  /**
   * Handles one delivery in one transaction on {@code connection}, which must have none open
   * (committed or rolled back here; its auto-commit setting is restored). An exception (the
   * effect's or PostgreSQL's) rolls everything back and is thrown: the caller answers 5xx and
   * slotkeeper retries.
   */
  public Outcome handle(Connection connection, Delivery delivery, Effect effect)
      throws SQLException {
    Objects.requireNonNull(effect, "effect");
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try {
      Outcome outcome = decide(connection, delivery, effect);
      if (outcome.kind() == Outcome.Kind.APPLIED || outcome.kind() == Outcome.Kind.REPLAYED) {
        connection.commit();
      } else {
        connection.rollback();
      }
      return outcome;
    } catch (SQLException | RuntimeException | Error e) {
      try {
        connection.rollback();
      } catch (SQLException rollbackFailed) {
        e.addSuppressed(rollbackFailed);
      }
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  private Outcome decide(Connection c, Delivery d, Effect effect) throws SQLException {
    try (Statement st = c.createStatement()) {
      // SET LOCAL: the deadline ends with the transaction, the pool's connection keeps its own.
      st.execute("SET LOCAL statement_timeout = " + statementTimeout.toMillis());
    }
    long highest = raiseFence(c, d);
    if (d.fencingToken() < highest) {
      return Outcome.of(
          Outcome.Kind.STALE_TOKEN,
          new Problem(
              409,
              "Stale fencing token",
              "fencing token "
                  + d.fencingToken()
                  + " is lower than "
                  + highest
                  + ", the highest seen for schedule "
                  + d.schedule()));
    }
    if (claimKey(c, d)) {
      Response response = effect.apply(c, d);
      if (response.asksForRetry()) {
        return new Outcome(Outcome.Kind.NOT_RECORDED, response.status(), response.body());
      }
      recordAnswer(c, d, response);
      return new Outcome(Outcome.Kind.APPLIED, response.status(), response.body());
    }
    return recorded(c, d);
  }

  private static long raiseFence(Connection c, Delivery d) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RAISE_FENCE)) {
      ps.setString(1, d.schedule());
      ps.setLong(2, d.fencingToken());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static boolean claimKey(Connection c, Delivery d) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CLAIM_KEY)) {
      ps.setString(1, d.idempotencyKey());
      ps.setString(2, d.schedule());
      ps.setTimestamp(3, Timestamp.from(d.slot()));
      return ps.executeUpdate() == 1;
    }
  }

  private static void recordAnswer(Connection c, Delivery d, Response response)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RECORD_ANSWER)) {
      ps.setInt(1, response.status());
      ps.setString(2, response.body());
      ps.setString(3, d.idempotencyKey());
      ps.executeUpdate();
    }
  }

  private static Outcome recorded(Connection c, Delivery d) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RECORDED)) {
      ps.setString(1, d.idempotencyKey());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || rs.getObject(3) == null) {
          // the claim's transaction committed, so its row and answer are there
          throw new IllegalStateException("key " + d.idempotencyKey() + " has no recorded answer");
        }
        String schedule = rs.getString(1);
        Instant slot = rs.getTimestamp(2).toInstant();
        // timestamptz keeps microseconds
        if (!schedule.equals(d.schedule())
            || !slot.equals(d.slot().truncatedTo(ChronoUnit.MICROS))) {
          return Outcome.of(
              Outcome.Kind.KEY_REUSED,
              new Problem(
                  422,
                  "Idempotency-Key reused",
                  "key "
                      + d.idempotencyKey()
                      + " was recorded for schedule "
                      + schedule
                      + " and slot "
                      + slot));
        }
        return new Outcome(Outcome.Kind.REPLAYED, rs.getInt(3), rs.getString(4));
      }
    }
  }
}
