package io.slotkeeper.app;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.slotkeeper.api.grpc.GrpcApiVerticle;
import io.slotkeeper.api.http.HttpApiDependencies;
import io.slotkeeper.api.http.HttpApiVerticle;
import io.slotkeeper.api.http.support.ReadYourWrites;
import io.slotkeeper.business.Business;
import io.slotkeeper.business.fulfilment.OrderFulfilment;
import io.slotkeeper.business.jobs.JobHandlers;
import io.slotkeeper.business.jobs.RetentionCleanupJob;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.delivery.DeliveryAttempts;
import io.slotkeeper.delivery.DeliverySettings;
import io.slotkeeper.delivery.HttpDelivery;
import io.slotkeeper.delivery.TargetGuard;
import io.slotkeeper.idempotency.IdempotencyStore;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.metrics.BoundedLabels;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.operations.OperationsDependencies;
import io.slotkeeper.operations.auth.Tokens;
import io.slotkeeper.operations.idempotency.NewKeyLimit;
import io.slotkeeper.platform.Infrastructure;
import io.slotkeeper.platform.axon.EventPositions;
import io.slotkeeper.platform.config.SlotkeeperConfig;
import io.slotkeeper.platform.db.Database;
import io.slotkeeper.platform.db.ReadPools;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.HttpTarget;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.slotkeeper.schedules.JobsFileSync;
import io.slotkeeper.schedules.ProjectedScheduleCatalog;
import io.slotkeeper.schedules.Schedules;
import io.slotkeeper.schedules.StoredSchedules;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.slots.SlotLedger;
import io.slotkeeper.stream.EventReader;
import io.slotkeeper.stream.RedisEventPublisher;
import io.slotkeeper.timers.ClockSkewVerticle;
import io.slotkeeper.timers.ExpectedSlotsVerticle;
import io.slotkeeper.timers.SlotRunner;
import io.slotkeeper.timers.Timers;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.RedisOptions;
import io.vertx.sqlclient.Pool;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole service, started in order (stores, schema, write side, Vert.x, HTTP, gRPC) and stopped
 * in reverse. Blocking start-up work happens here, before any event loop serves a request.
 */
public final class Slotkeeper implements AutoCloseable {

  /** How long each start-up step may take before the start fails. */
  private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(60);

  /** More for the jobs file, per job it declares. */
  private static final Duration PER_FILE_JOB = Duration.ofMillis(20);

  private static final Logger log = LoggerFactory.getLogger(Slotkeeper.class);

  private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
  private int httpPort;
  private int grpcPort;
  private List<GrpcApiVerticle> grpcInstances = List.of();
  private WriteModel writeModel;

  private Slotkeeper() {}

  /** Starts everything the configuration asks for; on failure, stops what had started. */
  public static Slotkeeper start(SlotkeeperConfig config) {
    Slotkeeper app = new Slotkeeper();
    try {
      app.boot(config);
      return app;
    } catch (Exception e) {
      // Exception, not RuntimeException: a checked one thrown unchecked must close the app too.
      app.close();
      throw e;
    }
  }

  private void boot(SlotkeeperConfig config) {
    // Every JSON log line carries the instance (context properties are part of JsonEncoder's line).
    if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext) {
      ((ch.qos.logback.classic.LoggerContext) LoggerFactory.getILoggerFactory())
          .putProperty("instance", config.instanceId());
    }
    log.info("slotkeeper instance {} starting", config.instanceId());
    Infrastructure infra = Infrastructure.start(config);
    toClose.push(infra);
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    meters.config().commonTags("instance_id", config.instanceId());
    meters.config().meterFilter(BoundedLabels.filter());
    new JvmMemoryMetrics().bindTo(meters);
    new JvmGcMetrics().bindTo(meters);
    new JvmThreadMetrics().bindTo(meters);
    new ProcessorMetrics().bindTo(meters);
    new UptimeMetrics().bindTo(meters);
    SlotkeeperMetrics metrics = new SlotkeeperMetrics(meters, config.metricsSchedules());

    Database database =
        Database.open(
            infra.postgres(), config.jdbcPoolSize(), config.taskPoolSize(), config.instanceId());
    toClose.push(database);
    database.bindMetrics(meters);

    // Vert.x's own meters (HTTP server, PostgreSQL and Redis clients, pools) on the same registry.
    // Vert.x and Redis before the write side: the Redis Streams publisher runs inside it, and the
    // write side must stop before them.
    Vertx vertx =
        Vertx.builder()
            .with(
                new VertxOptions()
                    .setMetricsOptions(
                        new MicrometerMetricsOptions()
                            .setEnabled(true)
                            .setJvmMetricsEnabled(false)))
            .withMetrics(new MicrometerMetricsFactory(meters))
            .build();
    toClose.push(() -> vertx.close().await(30, TimeUnit.SECONDS));
    Redis redisClient =
        Redis.createClient(
            vertx,
            new RedisOptions()
                .setConnectionString(infra.redis().connectionString())
                // Every job's timer renews its lease here and the event publisher appends here:
                // the default wait queue (24) refused renewals of a few hundred jobs, and a lease
                // that cannot be renewed expires and stops its job's timer.
                .setMaxPoolWaiting(4096));
    RedisAPI redis = RedisAPI.api(redisClient);
    // The one clock everything reads "now" from (tests of the parts inject their own).
    Clock clock = Clock.systemUTC();
    SlotClock slotClock = clock::instant;
    // One memory of fetched event positions for the projections and the stream publisher.
    EventPositions positions = new EventPositions(database.transactions());
    writeModel =
        WriteModel.start(
            database,
            List.of(Business.module(), SlotLedger.module(), Schedules.module()),
            new WriteModel.Options(
                config.instanceId(),
                config.commandThreads(),
                true,
                clock,
                config.aggregateCacheSize(),
                config.commandBatches()),
            positions,
            List.of(
                new RedisEventPublisher(
                    redisClient, config.streamKey(), config.streamMaxLen(), positions)),
            metrics);
    toClose.push(writeModel);
    OrderFulfilment fulfilment = new OrderFulfilment(writeModel, database.dataSource());
    toClose.push(fulfilment);
    Pool pool =
        ReadPools.create(
            vertx,
            infra.postgres(),
            config.pgClientPoolSize(),
            "slotkeeper-read-" + config.instanceId());

    // Namespaced by the database: deployments (or test runs) that share a Redis but not a database
    // never share timer partitions, whose schedules they would not know.
    RedisLeases leases = new RedisLeases(redis, RedisLeases.prefixFor(infra.postgres().database()));
    LedgerQueries ledger = new LedgerQueries(pool);
    // The jobs file is a declarative source of schedules: applied before the timers start; the
    // timers and the API then read the schedules through the catalog.
    JobsFile file = JobsFile.fromEnvironment(config.jobsFileEnvironment());
    // One command per file job: a file of 10,000 took 18 s alone, and three instances starting at
    // once on two cores (the same declarations, deduplicated) took over a minute.
    JobsFileSync.Result declared =
        await(
            new JobsFileSync(writeModel.commands(), pool).apply(file),
            "the jobs file",
            STARTUP_DEADLINE.plus(PER_FILE_JOB.multipliedBy(file.jobs().size())));
    ProjectedScheduleCatalog schedules = new ProjectedScheduleCatalog(vertx, pool, metrics, clock);
    // The file's schedules as the write side answered: a new projection may still be catching up.
    schedules.seed(declared.schedules());
    await(schedules.start(), "the schedule catalog");
    toClose.push(schedules);
    // HTTP targets: the guard checks a target's URL at creation and its address at delivery.
    DeliverySettings delivery = DeliverySettings.from(config.httpTargets());
    TargetGuard targetGuard = TargetGuard.of(delivery.allow(), infra.embedded());
    StoredSchedules stored = new StoredSchedules(database.dataSource());
    HttpDelivery http =
        new HttpDelivery(
            vertx,
            delivery,
            targetGuard,
            new HttpDelivery.Wiring(
                // The catalog, or the read table for a schedule it has not polled yet.
                name -> schedules.get(name).or(() -> stored.find(name)).map(JobDefinition::target),
                variable -> Optional.ofNullable(System.getenv(variable)),
                new DeliveryAttempts(database.dataSource()),
                metrics,
                config.instanceId(),
                clock));
    toClose.push(http);
    Map<String, JobHandler> handlers =
        new HashMap<>(
            JobHandlers.standard(writeModel.commands(), fulfilment, database.dataSource()));
    handlers.put(HttpTarget.HANDLER, http);
    SlotRunner runner =
        new SlotRunner(
            vertx, writeModel.batcher(), handlers, config.instanceId(), metrics, slotClock);
    JobSpecs.Rules scheduleRules =
        new JobSpecs.Rules(
            handlers.keySet(), ledgerRetention(file), Duration.ofSeconds(1), targetGuard);
    Timers timers =
        await(
            Timers.deploy(
                vertx,
                schedules,
                runner,
                writeModel.batcher(),
                leases,
                ledger,
                slotClock,
                config.instanceId(),
                new Timers.Settings(
                    config.timersEnabled(), config.timerPartitions(), config.timerLeaseTtl())),
            "the timers");

    if (config.timersEnabled()) {
      await(
          // A worker: walking every schedule is CPU work no event loop should wait for.
          vertx.deployVerticle(
              new ExpectedSlotsVerticle(schedules, metrics, slotClock),
              new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)),
          "the expected slots counter");
    }
    ClockSkewVerticle skew = new ClockSkewVerticle(pool, slotClock);
    await(vertx.deployVerticle(skew), "the clock skew probe");
    metrics.clockSkew(skew::skew);

    Tokens tokens =
        new Tokens(
            config.clientToken().orElseGet(() -> generated("client")),
            config.operatorToken().orElseGet(() -> generated("operator")));
    EventReader events =
        new EventReader(pool, config.streamGapTimeout(), config.limits().subscribersPerToken());
    io.micrometer.core.instrument.Gauge.builder(
            "slotkeeper.event.subscribers", events, EventReader::subscribers)
        .description("Live SSE and gRPC subscriptions following the event store")
        .register(meters);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "slotkeeper.event.pages", events, EventReader::pagesRead)
        .description("Pages of events read for subscriptions and GET /v1/events")
        .register(meters);
    OperationsDependencies deps =
        new OperationsDependencies(
            writeModel,
            fulfilment,
            timers,
            ledger,
            leases,
            pool,
            new IdempotencyStore(
                // Key claims and saved successes need no WAL flush of their own (see the store).
                ReadPools.createKeyStore(
                    vertx,
                    infra.postgres(),
                    config.pgClientPoolSize(),
                    "slotkeeper-keys-" + config.instanceId()),
                // A success is saved in the transaction of its command.
                database.transactions(),
                config.idempotencyKeyTtl(),
                config.idempotencyLockTimeout()),
            tokens,
            metrics,
            Duration.ofSeconds(15),
            new NewKeyLimit(config.limits().idempotencyKeysPerHour(), slotClock),
            events,
            schedules,
            scheduleRules);
    HttpApiDependencies httpDeps =
        new HttpApiDependencies(
            deps,
            redis,
            meters::scrape,
            // One per process: a write and the read after it may reach different event loops.
            new ReadYourWrites(vertx, Duration.ofSeconds(2)));
    // Several instances of each API on its port (Vert.x shares the bound socket among them and
    // hands connections round-robin): a single event loop would parse, authenticate and answer
    // every request on one core.
    SlotkeeperConfig.ClientLimits limits = config.limits();
    DeploymentOptions httpOptions =
        listenOn(config.httpPort(), -1, limits.bindAddress()).setInstances(config.httpEventLoops());
    httpOptions
        .getConfig()
        .put("h2c", limits.httpH2c())
        .put("maxConnections", limits.httpMaxConnections())
        .put("idleTimeoutMillis", limits.httpIdleTimeout().toMillis())
        .put("headerTimeoutMillis", limits.httpHeaderTimeout().toMillis())
        .put("bodyTimeoutMillis", limits.httpBodyTimeout().toMillis());
    AtomicInteger httpConnections = new AtomicInteger();
    List<HttpApiVerticle> https =
        deployShared(
            vertx,
            () -> new HttpApiVerticle(httpDeps, httpConnections),
            httpOptions,
            "the HTTP API");
    httpPort = https.get(0).actualPort();
    // gRPC keeps each connection (HTTP/2) on the instance that accepted it; several connections
    // spread over the instances as HTTP's do.
    DeploymentOptions grpcOptions =
        listenOn(config.grpcPort(), -2, limits.bindAddress()).setInstances(config.httpEventLoops());
    grpcOptions
        .getConfig()
        .put("keepAliveMillis", config.grpcKeepAlive().toMillis())
        .put("keepAliveTimeoutMillis", config.grpcKeepAliveTimeout().toMillis())
        .put("maxConnections", limits.grpcMaxConnections())
        .put("maxConcurrentStreams", limits.grpcMaxConcurrentStreams())
        .put("maxMessageBytes", limits.grpcMaxMessageBytes());
    AtomicInteger grpcConnections = new AtomicInteger();
    grpcInstances =
        deployShared(
            vertx, () -> new GrpcApiVerticle(deps, grpcConnections), grpcOptions, "the gRPC API");
    grpcPort = grpcInstances.get(0).actualPort();
    // Undeploy every verticle first on close, while Redis and the write side still answer: the
    // APIs stop taking requests and each timer releases its lease, so another instance takes the
    // job at its next upkeep instead of one lease TTL later. vertx.close() alone closes the Redis
    // client before it undeploys the verticles, and their releases would fail.
    toClose.push(() -> undeployAll(vertx));
    log.info(
        "slotkeeper instance {} ready on http://{}:{} (gRPC on port {})",
        config.instanceId(),
        limits.bindAddress(),
        httpPort,
        grpcPort);
  }

  /**
   * The slot ledger's retention as the jobs file's retention job sets it (the shortest, if several
   * run that handler): a catch-up window longer than it could not tell which old slots ran.
   */
  private static Duration ledgerRetention(JobsFile file) {
    Duration shortest = null;
    for (JobDefinition job : file.jobs()) {
      String raw = job.params().get("ledgerRetention");
      if (RetentionCleanupJob.NAME.equals(job.handler()) && raw != null) {
        try {
          Duration d = Duration.parse(raw.trim());
          shortest = shortest == null || d.compareTo(shortest) < 0 ? d : shortest;
        } catch (java.time.format.DateTimeParseException e) {
          // the job reports its bad parameter when it runs
        }
      }
    }
    return shortest == null ? RetentionCleanupJob.DEFAULT_LEDGER_RETENTION : shortest;
  }

  private static void undeployAll(Vertx vertx) throws Exception {
    List<Future<Void>> undeployed = new ArrayList<>();
    for (String id : vertx.deploymentIDs()) {
      undeployed.add(vertx.undeploy(id));
    }
    Future.join(undeployed).await(10, TimeUnit.SECONDS);
  }

  /** Deploys {@code options.getInstances()} verticles from {@code factory}; returns them. */
  private static <V extends VerticleBase> List<V> deployShared(
      Vertx vertx, Supplier<V> factory, DeploymentOptions options, String what) {
    List<V> instances = new CopyOnWriteArrayList<>();
    await(
        vertx.deployVerticle(
            () -> {
              V instance = factory.get();
              instances.add(instance);
              return instance;
            },
            options),
        what);
    return instances;
  }

  /**
   * Options of verticles listening on {@code port}; port 0 (any free port) becomes {@code
   * sharedRandom}, a negative port: Vert.x binds one random port for all servers that ask for the
   * same negative value, so the instances of one API share theirs and HTTP and gRPC get two.
   */
  private static DeploymentOptions listenOn(int port, int sharedRandom, String host) {
    return new DeploymentOptions()
        .setConfig(new JsonObject().put("port", port == 0 ? sharedRandom : port).put("host", host));
  }

  /**
   * The result of a start-up step, or an unchecked exception naming the step. {@code Future.await}
   * throws a failure's checked cause as it is (a {@code SocketException} of the first read, a
   * {@code SQLException} of the jobs file's sync), which no {@code catch (RuntimeException)} sees:
   * it ended the main thread while the other threads kept the process alive, not listening, never
   * restarted (met by {@code make chaos}).
   */
  static <T> T await(Future<T> future, String what) {
    return await(future, what, STARTUP_DEADLINE);
  }

  private static <T> T await(Future<T> future, String what, Duration deadline) {
    try {
      return future.await(deadline.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(what + " did not start within " + deadline, e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(what + " did not start: " + e, e);
    }
  }

  /** A random token for a role left unconfigured; printed once so the operator can use it. */
  private static String generated(String role) {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    log.warn(
        "SLOTKEEPER_{}_TOKEN is not set; generated {} token for this run: {}",
        role.toUpperCase(),
        role,
        token);
    return token;
  }

  /** The write side (tests write through it directly). */
  public WriteModel writeModel() {
    return writeModel;
  }

  /** The HTTP port actually bound. */
  public int httpPort() {
    return httpPort;
  }

  /** The gRPC port actually bound. */
  public int grpcPort() {
    return grpcPort;
  }

  /** The gRPC API's verticle instances sharing its port (SLOTKEEPER_HTTP_EVENT_LOOPS). */
  public int grpcInstances() {
    return grpcInstances.size();
  }

  @Override
  public void close() {
    while (!toClose.isEmpty()) {
      try {
        toClose.pop().close();
      } catch (Exception e) {
        log.warn("shutdown step failed: {}", e.toString());
      }
    }
  }
}
