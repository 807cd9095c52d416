package io.slotkeeper.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JDBC ledger on real PostgreSQL: one effect per key, no effect for a stale token. */
class DeliveryLedgerIT {

  private static final Instant SLOT = Instant.parse("2026-01-01T00:00:00Z");
  private static ReceiverDatabase db;
  private final DeliveryLedger ledger = new DeliveryLedger();

  @BeforeAll
  static void database() throws SQLException {
    db = new ReceiverDatabase("receiver_ledger");
  }

  private static Delivery delivery(String key, String schedule, long token) {
    return new Delivery(key, schedule, SLOT, 1, token, "{}".getBytes());
  }

  private static String newKey() {
    return UUID.randomUUID().toString();
  }

  private Outcome handle(Delivery d, Effect effect) throws SQLException {
    try (Connection c = db.connection()) {
      return ledger.handle(c, d, effect);
    }
  }

  private long shipmentsOf(String key) throws SQLException {
    return db.count("SELECT count(*) FROM shipments WHERE idem_key = '" + key + "'");
  }

  private long highestToken(String schedule) throws SQLException {
    return db.count(
        "SELECT highest_token FROM receiver_fences WHERE schedule = '" + schedule + "'");
  }

  @Test
  void aRepeatedKeyAnswersTheRecordedResponseWithoutASecondEffect() throws SQLException {
    String key = newKey();
    Outcome first = handle(delivery(key, "repeat", 3), ReceiverDatabase::ship);
    Outcome second = handle(delivery(key, "repeat", 3), ReceiverDatabase::ship);

    assertThat(first.kind()).isEqualTo(Outcome.Kind.APPLIED);
    assertThat(second.kind()).isEqualTo(Outcome.Kind.REPLAYED);
    assertThat(second.status()).isEqualTo(200).isEqualTo(first.status());
    assertThat(second.body()).isEqualTo(first.body()).contains(key);
    assertThat(shipmentsOf(key)).isEqualTo(1);
    assertThat(db.count("SELECT status FROM receiver_deliveries WHERE idem_key = '" + key + "'"))
        .isEqualTo(200);
  }

  @Test
  void aLowerTokenIsRefusedAndChangesNothing() throws SQLException {
    handle(delivery(newKey(), "fenced", 7), ReceiverDatabase::ship);
    String staleKey = newKey();

    Outcome stale = handle(delivery(staleKey, "fenced", 6), ReceiverDatabase::ship);

    assertThat(stale.kind()).isEqualTo(Outcome.Kind.STALE_TOKEN);
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.problem()).isTrue();
    assertThat(stale.body()).contains("fencing token 6 is lower than 7");
    assertThat(shipmentsOf(staleKey)).isZero();
    assertThat(
            db.count(
                "SELECT count(*) FROM receiver_deliveries WHERE idem_key = '" + staleKey + "'"))
        .isZero();
    assertThat(highestToken("fenced")).isEqualTo(7);
  }

  @Test
  void aHigherTokenIsAcceptedAndBecomesTheHighest() throws SQLException {
    handle(delivery(newKey(), "taken-over", 4), ReceiverDatabase::ship);
    String equalKey = newKey();
    assertThat(handle(delivery(equalKey, "taken-over", 4), ReceiverDatabase::ship).kind())
        .isEqualTo(Outcome.Kind.APPLIED);
    String higherKey = newKey();

    Outcome higher = handle(delivery(higherKey, "taken-over", 9), ReceiverDatabase::ship);

    assertThat(higher.kind()).isEqualTo(Outcome.Kind.APPLIED);
    assertThat(shipmentsOf(higherKey)).isEqualTo(1);
    assertThat(highestToken("taken-over")).isEqualTo(9);
    // the holder the token 9 replaced is stale now, even for its own slot's key
    assertThat(handle(delivery(equalKey, "taken-over", 4), ReceiverDatabase::ship).status())
        .isEqualTo(409);
    // fences are per schedule
    assertThat(handle(delivery(newKey(), "another", 1), ReceiverDatabase::ship).kind())
        .isEqualTo(Outcome.Kind.APPLIED);
  }

  @Test
  void aRefusalOfTheTeamIsRecordedAndReplayed() throws SQLException {
    String key = newKey();
    Effect refuses = (c, d) -> new Response(404, "{\"unknown\":\"order\"}");

    Outcome first = handle(delivery(key, "refused", 1), refuses);
    Outcome replay = handle(delivery(key, "refused", 1), ReceiverDatabase::ship);

    assertThat(first.kind()).isEqualTo(Outcome.Kind.APPLIED);
    assertThat(replay.kind()).isEqualTo(Outcome.Kind.REPLAYED);
    assertThat(replay.status()).isEqualTo(404);
    assertThat(replay.body()).isEqualTo("{\"unknown\":\"order\"}");
    assertThat(shipmentsOf(key)).isZero();
  }

  @Test
  void aKeyRecordedForAnotherSlotIs422() throws SQLException {
    String key = newKey();
    handle(delivery(key, "reused", 1), ReceiverDatabase::ship);
    Delivery otherSlot = new Delivery(key, "reused", SLOT.plusSeconds(60), 1, 1, new byte[0]);

    Outcome reused = handle(otherSlot, ReceiverDatabase::ship);

    assertThat(reused.kind()).isEqualTo(Outcome.Kind.KEY_REUSED);
    assertThat(reused.status()).isEqualTo(422);
    assertThat(shipmentsOf(key)).isEqualTo(1);
  }

  @Test
  void aFailedEffectRollsBackItsWritesAndTheKeySoARetryRunsIt() throws SQLException {
    String key = newKey();
    Effect shipsThenFails =
        (c, d) -> {
          ReceiverDatabase.ship(c, d);
          throw new SQLException("the team's effect failed");
        };
    assertThatThrownBy(() -> handle(delivery(key, "failing", 1), shipsThenFails))
        .hasMessage("the team's effect failed");
    Effect shipsThen503 =
        (c, d) -> {
          ReceiverDatabase.ship(c, d);
          return new Response(503, "busy");
        };
    Outcome unavailable = handle(delivery(key, "failing", 1), shipsThen503);
    assertThat(unavailable.kind()).isEqualTo(Outcome.Kind.NOT_RECORDED);
    assertThat(unavailable.status()).isEqualTo(503);
    assertThat(shipmentsOf(key)).isZero();
    Effect shipsThen429 =
        (c, d) -> {
          ReceiverDatabase.ship(c, d);
          return new Response(429, "slow down");
        };
    assertThat(handle(delivery(key, "failing", 1), shipsThen429).kind())
        .isEqualTo(Outcome.Kind.NOT_RECORDED);
    assertThat(shipmentsOf(key)).isZero();

    Outcome retried = handle(delivery(key, "failing", 1), ReceiverDatabase::ship);

    assertThat(retried.kind()).isEqualTo(Outcome.Kind.APPLIED);
    assertThat(shipmentsOf(key)).isEqualTo(1);
  }

  @Test
  void aStalledStatementFailsAtItsDeadlineAndRecordsNothing() throws SQLException {
    String key = newKey();
    DeliveryLedger quick = new DeliveryLedger(Duration.ofMillis(200));
    Effect stalls =
        (c, d) -> {
          ReceiverDatabase.ship(c, d);
          try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_sleep(5)");
          }
          return Response.ok("late");
        };
    long started = System.nanoTime();
    try (Connection c = db.connection()) {
      assertThatThrownBy(() -> quick.handle(c, delivery(key, "stalled", 1), stalls))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("statement timeout");
      assertThat(c.getAutoCommit()).isTrue();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    assertThat(shipmentsOf(key)).isZero();
  }

  @Test
  void twoConcurrentAttemptsWithOneKeyMakeOneEffect() throws Exception {
    String key = newKey();
    CountDownLatch bothStarted = new CountDownLatch(2);
    Effect slowShip =
        (c, d) -> {
          try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_sleep(0.3)"); // the other attempt arrives meanwhile
          }
          return ReceiverDatabase.ship(c, d);
        };
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Outcome>> attempts =
          List.of(
              pool.submit(
                  () -> {
                    bothStarted.countDown();
                    bothStarted.await();
                    return handle(delivery(key, "concurrent", 2), slowShip);
                  }),
              pool.submit(
                  () -> {
                    bothStarted.countDown();
                    bothStarted.await();
                    return handle(delivery(key, "concurrent", 2), slowShip);
                  }));
      Outcome a = attempts.get(0).get();
      Outcome b = attempts.get(1).get();

      assertThat(List.of(a.kind(), b.kind()))
          .containsExactlyInAnyOrder(Outcome.Kind.APPLIED, Outcome.Kind.REPLAYED);
      assertThat(a.body()).isEqualTo(b.body());
      assertThat(shipmentsOf(key)).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theSchemaCanBeCreatedAgain() throws SQLException {
    try (Connection c = db.connection()) {
      Schema.create(c);
    }
    assertThat(
            db.count(
                "SELECT count(*) FROM information_schema.tables"
                    + " WHERE table_name IN ('receiver_fences', 'receiver_deliveries')"))
        .isEqualTo(2);
  }
}
