package io.slotkeeper.timers;

import io.slotkeeper.business.Business;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.platform.config.PostgresEndpoint;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.InMemoryScheduleCatalog;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.slots.SlotLedger;
import io.slotkeeper.testing.TestInfra;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.sqlclient.Pool;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/** One slotkeeper "instance" for timer tests: its own Vert.x, write model and timers. */
final class TimerInstance implements AutoCloseable {

  final String id;
  final Vertx vertx = Vertx.vertx();
  final Database database;
  final WriteModel writeModel;
  final Pool pool;
  final SlotRunner runner;
  // Every statement the timers sent to PostgreSQL through the ledger's queries, by its SQL.
  final Map<String, LongAdder> statements = new ConcurrentHashMap<>();
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
    this(id, db, leasePrefix, InMemoryScheduleCatalog.of(jobs), handlers, clock, SETTINGS);
  }

  /** Few partitions and short leases, so that takeovers happen within a test's patience. */
  static final Timers.Settings SETTINGS = new Timers.Settings(true, 8, Duration.ofSeconds(2));

  TimerInstance(
      String id,
      PostgresEndpoint db,
      String leasePrefix,
      ScheduleCatalog catalog,
      Function<WriteModel, Map<String, JobHandler>> handlers,
      SlotClock clock,
      Timers.Settings settings)
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
                catalog,
                runner,
                writeModel.batcher(),
                new RedisLeases(redis, leasePrefix),
                new LedgerQueries(counting(pool)),
                clock,
                id,
                settings)
            .await(20, TimeUnit.SECONDS);
  }

  /** The pool, counting the statements sent through it. */
  private Pool counting(Pool real) {
    return (Pool)
        Proxy.newProxyInstance(
            Pool.class.getClassLoader(),
            new Class<?>[] {Pool.class},
            (proxy, method, args) -> {
              String name = method.getName();
              if ((name.equals("preparedQuery") || name.equals("query"))
                  && args != null
                  && args.length == 1
                  && args[0] instanceof String sql) {
                statements.computeIfAbsent(sql, k -> new LongAdder()).increment();
              }
              try {
                return method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** Statements sent so far, in all. */
  long statementCount() {
    return statements.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /**
   * Closes this instance's Vert.x: its Redis client goes first, so its leases are not released and
   * expire (as when the process dies); its write side stays up.
   */
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
