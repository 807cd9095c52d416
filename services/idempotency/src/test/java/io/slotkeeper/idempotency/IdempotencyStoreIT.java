package io.slotkeeper.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Claims and lookups, replays, mismatches, take-over of abandoned claims and expiry, on real
 * PostgreSQL.
 */
class IdempotencyStoreIT {

  static Vertx vertx;
  static PostgresEndpoint db;
  static Pool pool;
  static IdempotencyStore store;

  @BeforeAll
  static void setUp() {
    db = TestInfra.freshDatabase("idem");
    Database.open(db, 2, "idem-test").close(); // migrates the schema
    vertx = Vertx.vertx();
    // The pool the service gives the store: commits without waiting for the WAL flush.
    pool = ReadPools.createKeyStore(vertx, db, 4, "idem-test");
    store = new IdempotencyStore(pool, null, Duration.ofHours(24), Duration.ofSeconds(30));
  }

  @AfterAll
  static void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A key of the principal most tests use. */
  static IdempotencyKey key(String value) {
    return new IdempotencyKey("client", value);
  }

  static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.await(10, TimeUnit.SECONDS);
  }

  static void sql(String statement) throws Exception {
    await(pool.query(statement).execute());
  }

  @Test
  void principalsHaveTheirOwnKeys() throws Exception {
    IdempotencyKey client = new IdempotencyKey("client", "shared");
    IdempotencyKey operator = new IdempotencyKey("operator", "shared");
    assertThat(await(store.claim(client, "op", "f"))).isInstanceOf(Claim.Acquired.class);
    // Another principal's equal key is another key: no 409, no 422.
    assertThat(await(store.claim(operator, "other-op", "g"))).isInstanceOf(Claim.Acquired.class);
    StoredResponse saved = new StoredResponse(200, Map.of(), "{\"who\":\"client\"}");
    await(store.complete(client, saved));
    assertThat(await(store.lookup(client, "op", "f"))).isEqualTo(new Claim.Replay(saved));
    assertThat(await(store.lookup(operator, "other-op", "g"))).isInstanceOf(Claim.InFlight.class);
    await(store.release(operator));
    assertThat(await(store.lookup(operator, "op", "f"))).isInstanceOf(Claim.Free.class);
    StoredResponse theirs = new StoredResponse(201, Map.of(), "{\"who\":\"operator\"}");
    assertThat(await(store.save(operator, "op", "f", theirs))).isTrue();
    assertThat(await(store.claim(operator, "op", "f"))).isEqualTo(new Claim.Replay(theirs));
    assertThat(await(store.claim(client, "op", "f"))).isEqualTo(new Claim.Replay(saved));
  }

  @Test
  void firstClaimWinsThenInFlightThenReplay() throws Exception {
    assertThat(await(store.claim(key("k1"), "op", "f1"))).isInstanceOf(Claim.Acquired.class);
    assertThat(await(store.claim(key("k1"), "op", "f1"))).isInstanceOf(Claim.InFlight.class);
    assertThat(await(store.claim(key("k1"), "op", "other"))).isInstanceOf(Claim.Mismatch.class);
    assertThat(await(store.claim(key("k1"), "other-op", "f1"))).isInstanceOf(Claim.Mismatch.class);
    StoredResponse saved = new StoredResponse(201, Map.of("Location", "/x"), "{\"a\":1}");
    await(store.complete(key("k1"), saved));
    Claim replay = await(store.claim(key("k1"), "op", "f1"));
    assertThat(replay).isEqualTo(new Claim.Replay(saved));
  }

  @Test
  void aLookupWritesNothingAndAnswersFromTheKeysRow() throws Exception {
    assertThat(await(store.lookup(key("l1"), "op", "f"))).isInstanceOf(Claim.Free.class);
    assertThat(count("l1")).isZero();
    StoredResponse saved = new StoredResponse(201, Map.of("Location", "/l1"), "{\"a\":1}");
    assertThat(await(store.save(key("l1"), "op", "f", saved))).isTrue();
    assertThat(await(store.lookup(key("l1"), "op", "f"))).isEqualTo(new Claim.Replay(saved));
    assertThat(await(store.lookup(key("l1"), "op", "other"))).isEqualTo(new Claim.Mismatch("op"));
    assertThat(await(store.lookup(key("l1"), "other-op", "f"))).isEqualTo(new Claim.Mismatch("op"));
    // A key held: the save changes nothing and says so (the request answers with the holder's).
    StoredResponse other = new StoredResponse(422, Map.of(), "{\"status\":422}");
    assertThat(await(store.save(key("l1"), "other-op", "f", other))).isFalse();
    assertThat(await(store.lookup(key("l1"), "op", "f"))).isEqualTo(new Claim.Replay(saved));
  }

  @Test
  void aLookupSeesAClaimOfAnOperationOfSeveralSteps() throws Exception {
    assertThat(await(store.claim(key("l2"), "op", "f"))).isInstanceOf(Claim.Acquired.class);
    assertThat(await(store.lookup(key("l2"), "op", "f"))).isInstanceOf(Claim.InFlight.class);
    assertThat(await(store.lookup(key("l2"), "cmd", "f"))).isEqualTo(new Claim.Mismatch("op"));
    assertThat(await(store.save(key("l2"), "op", "f", new StoredResponse(200, Map.of(), "{}"))))
        .isFalse();
    // Abandoned: the same request may run again, and its save takes the row over.
    sql(
        "UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE idem_key = 'l2'");
    assertThat(await(store.lookup(key("l2"), "op", "f"))).isInstanceOf(Claim.Free.class);
    assertThat(
            await(store.save(key("l2"), "other-op", "f", new StoredResponse(200, Map.of(), "{}"))))
        .isFalse();
    StoredResponse saved = new StoredResponse(200, Map.of(), "{\"taken\":true}");
    assertThat(await(store.save(key("l2"), "op", "f", saved))).isTrue();
    assertThat(await(store.lookup(key("l2"), "op", "f"))).isEqualTo(new Claim.Replay(saved));
  }

  @Test
  void anExpiredKeyIsFreeToALookupAndItsSaveReplacesIt() throws Exception {
    assertThat(await(store.save(key("l3"), "op", "f", new StoredResponse(200, Map.of(), "{}"))))
        .isTrue();
    sql(
        "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idem_key = 'l3'");
    assertThat(await(store.lookup(key("l3"), "other-op", "g"))).isInstanceOf(Claim.Free.class);
    StoredResponse saved = new StoredResponse(201, Map.of(), "{\"new\":true}");
    assertThat(await(store.save(key("l3"), "other-op", "g", saved))).isTrue();
    assertThat(await(store.lookup(key("l3"), "other-op", "g"))).isEqualTo(new Claim.Replay(saved));
    assertThat(
            await(
                    pool.query(
                            "SELECT count(*) FROM idempotency_keys WHERE idem_key = 'l3'"
                                + " AND expires_at > now() + interval '23 hours'")
                        .execute())
                .iterator()
                .next()
                .getLong(0))
        .isEqualTo(1);
  }

  private static long count(String key) throws Exception {
    return await(
            pool.preparedQuery("SELECT count(*) FROM idempotency_keys WHERE idem_key = $1")
                .execute(io.vertx.sqlclient.Tuple.of(key)))
        .iterator()
        .next()
        .getLong(0);
  }

  @Test
  void theStoresPoolCommitsWithoutWaitingForTheFlushButARejectionIsSavedDurably() throws Exception {
    assertThat(
            await(pool.query("SHOW synchronous_commit").execute()).iterator().next().getString(0))
        .isEqualTo("off");
    assertThat(await(store.claim(key("k-rejected"), "op", "f"))).isInstanceOf(Claim.Acquired.class);
    StoredResponse rejection =
        new StoredResponse(
            422, Map.of("Content-Type", "application/problem+json"), "{\"status\":422}");
    await(store.complete(key("k-rejected"), rejection));
    assertThat(await(store.claim(key("k-rejected"), "op", "f")))
        .isEqualTo(new Claim.Replay(rejection));
  }

  @Test
  void anAbandonedClaimIsTakenOverOnce() throws Exception {
    assertThat(await(store.claim(key("k2"), "op", "f"))).isInstanceOf(Claim.Acquired.class);
    sql(
        "UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE idem_key = 'k2'");
    assertThat(await(store.claim(key("k2"), "op", "f"))).isInstanceOf(Claim.Acquired.class);
    assertThat(await(store.claim(key("k2"), "op", "f"))).isInstanceOf(Claim.InFlight.class);
  }

  @Test
  void anExpiredKeyIsFreeAgainAndPurged() throws Exception {
    await(store.claim(key("k3"), "op", "f"));
    await(store.complete(key("k3"), new StoredResponse(200, Map.of(), "{}")));
    sql(
        "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idem_key = 'k3'");
    assertThat(await(store.claim(key("k3"), "op", "new-body"))).isInstanceOf(Claim.Acquired.class);
    await(store.claim(key("k4"), "op", "f"));
    sql(
        "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idem_key = 'k4'");
    assertThat(await(store.purgeExpired())).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aReleasedKeyCanBeClaimedAgain() throws Exception {
    await(store.claim(key("k5"), "op", "f"));
    await(store.release(key("k5")));
    assertThat(await(store.claim(key("k5"), "op", "f"))).isInstanceOf(Claim.Acquired.class);
  }

  @Test
  void keysAreValidated() {
    assertThat(IdempotencyKeys.problemWith(null)).contains("required");
    assertThat(IdempotencyKeys.problemWith("x".repeat(256))).contains("255");
    assertThat(IdempotencyKeys.problemWith("tab\there")).contains("printable");
    assertThat(IdempotencyKeys.problemWith("ok-key_1")).isNull();
    // The edges of printable ASCII, and what non-ASCII keys look like once decoded.
    assertThat(IdempotencyKeys.problemWith("a ~")).isNull();
    assertThat(IdempotencyKeys.problemWith("k".repeat(255))).isNull();
    assertThat(IdempotencyKeys.problemWith("key\u007f")).contains("character 4 is not");
    assertThat(IdempotencyKeys.problemWith("\u00f9-key")).contains("printable ASCII");
    assertThat(IdempotencyKeys.problemWith("\u00c3\u00b9-key")).contains("character 1 is not");
    assertThat(IdempotencyKeys.problemWith("key\u00a0")).contains("printable ASCII");
  }

  @Test
  void concurrentClaimsShareStatementsAndTheSameKeyIsWonOnce() throws Exception {
    List<io.vertx.core.Future<Claim>> distinct = new ArrayList<>();
    List<io.vertx.core.Future<Claim>> same = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      distinct.add(store.claim(key("many-" + i), "op", "f"));
      if (i % 10 == 0) {
        same.add(store.claim(key("many-same"), "op", "f"));
      }
    }
    for (io.vertx.core.Future<Claim> f : distinct) {
      assertThat(await(f)).isInstanceOf(Claim.Acquired.class);
    }
    List<Claim> sameKey = new ArrayList<>();
    for (io.vertx.core.Future<Claim> f : same) {
      sameKey.add(await(f));
    }
    assertThat(sameKey).filteredOn(c -> c instanceof Claim.Acquired).hasSize(1);
    assertThat(sameKey).filteredOn(c -> c instanceof Claim.InFlight).hasSize(same.size() - 1);
    // Claims that waited for a statement on its way went together in the next one.
    assertThat(
            await(
                    pool.query(
                            "SELECT count(DISTINCT xmin::text) FROM idempotency_keys"
                                + " WHERE idem_key LIKE 'many-%'")
                        .execute())
                .iterator()
                .next()
                .getLong(0))
        .isLessThan(20);
  }

  @Test
  void aHeldKeyIsAnsweredByTheClaimStatementItself() throws Exception {
    StoredResponse saved = new StoredResponse(201, Map.of("Location", "/held"), "{\"held\":1}");
    await(store.claim(key("held"), "op", "f"));
    await(store.complete(key("held"), saved));
    KeyBatcher claims = new KeyBatcher(pool, KeyBatcher.Kind.CLAIM, 30, 86_400, 1, 10);
    KeyBatcher.Outcome outcome = await(claims.submit(key("held"), "op", "f"));
    assertThat(outcome.claimed()).isFalse();
    assertThat(outcome.holder()).isNotNull();
    assertThat(outcome.holder().getString("state")).isEqualTo("COMPLETED");
    assertThat(outcome.holder().getString("response_body")).isEqualTo(saved.body());
    KeyBatcher.Outcome fresh = await(claims.submit(key("held-fresh"), "op", "f"));
    assertThat(fresh.claimed()).isTrue();
    assertThat(fresh.holder()).isNull();
  }

  @Test
  void aKeyCommittedWhileItsClaimWaitedIsReadAgain() throws Exception {
    // Another request inserts the key and commits while our claim waits on it: the claim's
    // snapshot predates that row, so the store has to read it once more to replay it.
    io.vertx.sqlclient.SqlConnection other = await(pool.getConnection());
    try {
      await(other.query("BEGIN").execute());
      await(
          other
              .query(
                  "INSERT INTO idempotency_keys (idem_key, principal, operation, fingerprint,"
                      + " state, response_status, response_headers, response_body, expires_at)"
                      + " VALUES ('raced', 'client', 'op', 'f', 'COMPLETED', 200, '{}',"
                      + " '{\"raced\":1}',"
                      + " now() + interval '1 hour')")
              .execute());
      io.vertx.core.Future<Claim> claim = store.claim(key("raced"), "op", "f");
      Thread.sleep(300);
      assertThat(claim.isComplete()).as("the claim waits for the other transaction").isFalse();
      await(other.query("COMMIT").execute());
      assertThat(await(claim))
          .isEqualTo(new Claim.Replay(new StoredResponse(200, Map.of(), "{\"raced\":1}")));
    } finally {
      other.close();
    }
  }

  @Test
  void aPoolThatRefusesEveryStatementFailsEveryClaimWithoutStalling() throws Exception {
    // A closed pool refuses every statement (Vert.x 5 through the future, not by throwing): with
    // one statement allowed in flight, every claim must fail, none wait for a slot that a refused
    // statement never gave back.
    io.vertx.sqlclient.Pool closed = ReadPools.createKeyStore(vertx, db, 1, "idem-closed");
    await(closed.close());
    KeyBatcher claims = new KeyBatcher(closed, KeyBatcher.Kind.CLAIM, 30, 86_400, 1, 10);
    List<io.vertx.core.Future<KeyBatcher.Outcome>> answers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      answers.add(claims.submit(key("refused-" + i), "op", "f"));
    }
    for (io.vertx.core.Future<KeyBatcher.Outcome> answer : answers) {
      // Failed, not timed out: failsWithin alone also accepts a future that never completes.
      assertThat(answer.toCompletionStage().toCompletableFuture())
          .failsWithin(java.time.Duration.ofSeconds(5))
          .withThrowableOfType(java.util.concurrent.ExecutionException.class);
    }
  }
}
