package io.slotkeeper.timers;

import io.slotkeeper.business.Business;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.slots.SlotLedger;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** One slotkeeper "instance" for timer tests: its own Vert.x, write model and timers. */
final class TimerInstance implements AutoCloseable {

  final String id;
  final Vertx vertx = Vertx.vertx();
  final Database database;
  final WriteModel writeModel;
  final Pool pool;
  final SlotRunner runner;
  Timers timers;

  TimerInstance(
      String id,
      PostgresEndpoint db,
      String leasePrefix,
      JobsFile jobs,
      Function<WriteModel, Map<String, JobHandler>> handlers)
      throws Exception {
    this(id, db, leasePrefix, jobs, handlers, SlotClock.system());
  }

  TimerInstance(
      String id,
      PostgresEndpoint db,
      String leasePrefix,
      JobsFile jobs,
      Function<WriteModel, Map<String, JobHandler>> handlers,
      SlotClock clock)
      throws Exception {
    this.id = id;
    database = Database.open(db, 6, id);
    writeModel =
        WriteModel.start(
            database,
            List.of(Business.module(), SlotLedger.module()),
            new WriteModel.Options(id, 4, true));
    pool = ReadPools.create(vertx, db, 4, id);
    RedisAPI redis =
        RedisAPI.api(
            Redis.createClient(
                vertx,
                new RedisOptions().setConnectionString(TestInfra.redis().connectionString())));
    runner = new SlotRunner(vertx, writeModel.batcher(), handlers.apply(writeModel), id);
    timers =
        Timers.deploy(
                vertx,
                jobs,
                runner,
                writeModel.batcher(),
                new RedisLeases(redis, leasePrefix),
                new LedgerQueries(pool),
                clock,
                id,
                true)
            .await(20, TimeUnit.SECONDS);
  }

  /** Stops the timers (leases are released, as on SIGTERM). */
  void stopTimers() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    try {
      vertx.close().await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      // already closed
    }
    writeModel.close();
    database.close();
  }
}
