package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.testing.SettableClock;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The skew probe against the real PostgreSQL clock. */
class ClockSkewIT {

  @Test
  void aClockThatIsAnHourBehindReadsAsAnHourOfSkew() throws Exception {
    PostgresEndpoint db = TestInfra.postgresServer();
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = ReadPools.create(vertx, db, 2, "skew-test");
      SettableClock behind = new SettableClock(Instant.now().minus(Duration.ofHours(1)));
      ClockSkewVerticle probe = new ClockSkewVerticle(pool, behind);
      // Not deployed: its periodic probe would race with this one.
      Duration skew = probe.measure().await(10, TimeUnit.SECONDS);
      assertThat(skew.minus(Duration.ofHours(1)).abs()).isLessThan(Duration.ofSeconds(5));
      assertThat(probe.skew()).isEqualTo(skew);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
