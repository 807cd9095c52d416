package io.slotkeeper.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The key store plans its statements once per connection ({@link Database#KEYED_PLANS}). A generic
 * plan is made on the table as it is when first needed; this shows that, made on a table of one
 * key, the store's plans still read a handful of pages once the table holds 20,000 keys — and that
 * a statement joining the table without an index condition on it would read all of it, which is why
 * every statement on these pools names its keys as an index condition.
 */
class KeyedPlansIT {

  static PostgresEndpoint db;

  @BeforeAll
  static void setUp() {
    db = TestInfra.freshDatabase("plans");
    Database.open(db, 2, "plans-test").close(); // migrates the schema
  }

  @Test
  void plansMadeOnATinyTableStillReadOnlyTheirKeysOnceItIsLarge() throws Exception {
    assertThat(
            pagesReadAfterGrowth(
                "PREPARE claim(varchar[], varchar[], varchar[], varchar[], float8, float8) AS "
                    + KeyBatcher.CLAIM_ALL,
                "claim('{a}', '{client}', '{op}', '{f}', 30, 86400)",
                "claim('{b,k7}', '{client,client}', '{op,op}', '{f,f}', 30, 86400)"))
        .isLessThan(40);
    assertThat(
            pagesReadAfterGrowth(
                "PREPARE lookup(varchar[], varchar[]) AS " + KeyBatcher.LOOKUP_ALL,
                "lookup('{a}', '{client}')",
                "lookup('{b,k7}', '{client,operator}')"))
        .isLessThan(40);
    assertThat(
            pagesReadAfterGrowth(
                "PREPARE save_all(varchar[], varchar[], varchar[], varchar[], int[], text[],"
                    + " text[], float8) AS "
                    + numbered(IdempotencyStore.SAVE_ALL),
                "save_all('{one}', '{client}', '{op}', '{f}', '{200}', '{\"{}\"}', '{x}', 86400)",
                "save_all('{k9}', '{client}', '{op}', '{f}', '{200}', '{\"{}\"}', '{x}', 86400)"))
        .isLessThan(40);
    assertThat(
            pagesReadAfterGrowth(
                "PREPARE read_key(varchar, varchar) AS " + IdempotencyStore.READ,
                "read_key('one', 'client')",
                "read_key('k11', 'client')"))
        .isLessThan(40);
  }

  @Test
  void eachPoolPlansAsItsStatementsNeed() throws Exception {
    try (Database database = Database.open(db, 2, "plans-pools")) {
      assertThat(settings(database.transactions().getConnection())).isEqualTo("auto off");
      assertThat(settings(database.processorTransactions().getConnection())).isEqualTo("auto off");
      // Jobs and reports scan and join freely: planned for their parameters every time.
      assertThat(settings(database.dataSource().getConnection())).isEqualTo("force_custom_plan on");
    }
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      io.vertx.sqlclient.Pool keys =
          io.slotkeeper.platform.db.ReadPools.createKeyStore(vertx, db, 1, "plans-keys");
      io.vertx.sqlclient.Row row =
          keys.query(
                  "SELECT current_setting('plan_cache_mode'), current_setting('enable_seqscan'),"
                      + " current_setting('synchronous_commit')")
              .execute()
              .await(10, java.util.concurrent.TimeUnit.SECONDS)
              .iterator()
              .next();
      assertThat(row.getString(0) + " " + row.getString(1) + " " + row.getString(2))
          .isEqualTo("auto off off");
    } finally {
      vertx.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  private static String settings(Connection c) throws Exception {
    try (c;
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT current_setting('plan_cache_mode'), current_setting('enable_seqscan')")) {
      rs.next();
      return rs.getString(1) + " " + rs.getString(2);
    }
  }

  @Test
  void aJoinWithoutAnIndexConditionReadsTheWholeTable() throws Exception {
    // An UPDATE joined to its keys only through unnest (as the key completion once was): this is
    // why every statement above names its keys again as an index condition.
    String joinOnly =
        "UPDATE idempotency_keys k SET state = 'COMPLETED', locked_until = NULL,"
            + " response_status = v.status, response_headers = v.headers::jsonb,"
            + " response_body = v.body"
            + " FROM unnest($1::varchar[], $2::int[], $3::text[], $4::text[])"
            + " AS v(idem_key, status, headers, body) WHERE k.idem_key = v.idem_key";
    assertThat(joinOnly).doesNotContain("ANY");
    assertThat(
            pagesReadAfterGrowth(
                "PREPARE complete_all(varchar[], int[], text[], text[]) AS " + joinOnly,
                "complete_all('{one}', '{200}', '{\"{}\"}', '{x}')",
                "complete_all('{k9}', '{200}', '{\"{}\"}', '{x}')"))
        .isGreaterThan(100);
  }

  /**
   * On a connection with the key pools' settings, in one transaction rolled back: prepares a
   * statement and executes it ({@code first}) on an analyzed table of one key, which makes its
   * generic plan (as PostgreSQL would after five executions); grows the table to 20,000 keys;
   * returns the shared pages that executing {@code then} with that plan touches.
   */
  private static long pagesReadAfterGrowth(String prepare, String first, String then)
      throws Exception {
    Properties props = new Properties();
    props.setProperty("user", db.user());
    props.setProperty("password", db.password());
    props.setProperty("options", Database.options(Database.KEYED_PLANS));
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props);
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      st.execute(
          "INSERT INTO idempotency_keys (idem_key, principal, operation, fingerprint, state,"
              + " expires_at)"
              + " VALUES ('one', 'client', 'op', 'f', 'COMPLETED', now() + interval '1 day')");
      // Statistics of the tiny table, as autovacuum would gather them on a young database.
      st.execute("ANALYZE idempotency_keys");
      st.execute("SET LOCAL plan_cache_mode = force_generic_plan");
      st.execute(prepare);
      st.execute("EXECUTE " + first);
      st.execute(
          "INSERT INTO idempotency_keys (idem_key, principal, operation, fingerprint, state,"
              + " expires_at)"
              + " SELECT 'k' || i, 'client', 'op', 'f', 'COMPLETED', now() + interval '1 day'"
              + " FROM generate_series(1, 20000) i");
      try (ResultSet rs =
          st.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE " + then)) {
        rs.next();
        JsonObject plan = new JsonArray(rs.getString(1)).getJsonObject(0).getJsonObject("Plan");
        return plan.getLong("Shared Hit Blocks") + plan.getLong("Shared Read Blocks");
      } finally {
        c.rollback();
      }
    }
  }

  /** JDBC's {@code ?} placeholders as PostgreSQL's {@code $1, $2, ...}. */
  private static String numbered(String sql) {
    StringBuilder out = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        out.append('$').append(++n);
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }
}
