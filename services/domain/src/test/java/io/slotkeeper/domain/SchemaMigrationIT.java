package io.slotkeeper.domain;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.testing.TestInfra;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Several instances starting at once on an empty database migrate it exactly once. */
class SchemaMigrationIT {

  @Test
  void concurrentStartUpsMigrateOnce() throws Exception {
    PostgresEndpoint db = TestInfra.freshDatabase("migrate");
    int instances = 4;
    ExecutorService pool = Executors.newFixedThreadPool(instances);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Database>> opened = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      String id = "instance-" + i;
      opened.add(
          pool.submit(
              () -> {
                go.await();
                return Database.open(db, 2, id);
              }));
    }
    go.countDown();
    for (Future<Database> f : opened) {
      f.get().close();
    }
    pool.shutdown();
    long versions =
        TestInfra.queryLong(db, "SELECT count(*) FROM flyway_schema_history WHERE success");
    long distinct =
        TestInfra.queryLong(db, "SELECT count(DISTINCT version) FROM flyway_schema_history");
    assertThat(versions).isEqualTo(distinct).isGreaterThanOrEqualTo(4);
    assertThat(TestInfra.queryLong(db, "SELECT count(*) FROM domain_event_entry")).isZero();
  }
}
