package io.slotkeeper.operations.jobs;

import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.operations.idempotency.ClaimedOperations;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.schedules.ScheduleOperations;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.PathIds;
import io.slotkeeper.operations.support.Ranges;
import io.slotkeeper.operations.support.RequestFields;
import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.Slots;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.ScheduleCatalog;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.slots.SlotCommands;
import io.slotkeeper.slots.StaleFencingTokenException;
import io.slotkeeper.stream.SlotEvents;
import io.slotkeeper.timers.RunResult;
import io.slotkeeper.timers.SlotRunner.Trigger;
import io.slotkeeper.timers.Timers;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The scheduled jobs, protocol-free (shared by HTTP and gRPC): state, runs, pause/resume, manual
 * trigger and backfill, of the schedules the catalog holds. The routes under {@code
 * /v1/schedules/{name}} (runs, trigger, backfill) and the deprecated {@code /v1/jobs} ones both
 * come here.
 */
public final class JobOperations {

  static final int MAX_BACKFILL = 1_000;
  private static final int STALE_TOKEN_RETRIES = 3;
  public static final int DEFAULT_RUNS_LIMIT = 100;
  public static final int MAX_RUNS_LIMIT = 1_000;

  private final Timers timers;
  private final ScheduleCatalog schedules;
  private final ScheduleOperations scheduleOperations;
  private final LedgerQueries ledger;
  private final RedisLeases leases;
  private final JobRunQueries runs;
  private final SlotEvents slotEvents;
  private final ClaimedOperations claimed;

  public JobOperations(
      Timers timers,
      ScheduleCatalog schedules,
      ScheduleOperations scheduleOperations,
      LedgerQueries ledger,
      RedisLeases leases,
      JobRunQueries runs,
      SlotEvents slotEvents,
      ClaimedOperations claimed) {
    this.timers = timers;
    this.schedules = schedules;
    this.scheduleOperations = scheduleOperations;
    this.ledger = ledger;
    this.leases = leases;
    this.runs = runs;
    this.slotEvents = slotEvents;
    this.claimed = claimed;
  }

  /**
   * The schedule as the read table has it (fresher than this instance's catalog, which polls it: a
   * schedule created or changed a moment ago), else as the catalog has it (the jobs file's, seeded
   * before their events are projected); a 404 problem when neither knows it or it was deleted.
   */
  private Future<JobDefinition> job(String name) {
    PathIds.require("job", name);
    return scheduleOperations
        .current(name)
        .map(
            stored ->
                stored
                    .or(() -> schedules.get(name))
                    .orElseThrow(() -> ApiProblem.notFound("no job named " + name)));
  }

  /** Every job with its state and last runs. */
  public Future<JsonObject> list() {
    List<Future<JsonObject>> all = new ArrayList<>();
    for (JobDefinition job : schedules.all()) {
      all.add(describe(job, 3));
    }
    return Future.all(all)
        .map(
            done -> {
              JsonArray jobs = new JsonArray();
              all.forEach(f -> jobs.add(f.result()));
              return new JsonObject().put("jobs", jobs);
            });
  }

  /** One job's state; a 404 problem when there is no such job. */
  public Future<JsonObject> get(String name) {
    return job(name).compose(job -> describe(job, 10));
  }

  private Future<JsonObject> describe(JobDefinition job, int lastRuns) {
    Instant now = timers.clock().now();
    JsonArray next = new JsonArray();
    Slots.between(job.schedule(), now, Instant.MAX, 3).forEach(s -> next.add(s.toString()));
    return Future.all(
            leases.holder(timers.leaseName(job.name())),
            ledger.paused(job.name()),
            runs.runs(job.name(), Instant.EPOCH, now.plus(Duration.ofDays(1)), lastRuns))
        .map(
            all ->
                new JsonObject()
                    .put("name", job.name())
                    .put("schedule", describe(job.schedule()))
                    .put("zone", job.zone().getId())
                    .put("enabled", job.enabled())
                    .put("paused", all.<Boolean>resultAt(1))
                    .put("catchUp", job.catchUpPolicy().name() + " within " + job.catchUpWindow())
                    .put("overlap", job.overlapPolicy().name())
                    .put("leaseHolder", all.<Optional<String>>resultAt(0).orElse(null))
                    .put("nextSlots", next)
                    .put("lastRuns", all.<JsonArray>resultAt(2)));
  }

  private static String describe(Schedule schedule) {
    return schedule instanceof CronSchedule
        ? "cron " + ((CronSchedule) schedule).expression()
        : "every " + ((io.slotkeeper.scheduler.schedule.IntervalSchedule) schedule).interval();
  }

  /** The job's runs with nominal instants in [from, to] (ISO-8601, optional), newest first. */
  public Future<JsonObject> runs(String name, String from, String to, int limit) {
    return job(name).compose(job -> runs(job, from, to, limit));
  }

  private Future<JsonObject> runs(JobDefinition job, String from, String to, int limit) {
    Instant toInstant = optionalInstant("to", to, timers.clock().now().plus(Duration.ofDays(1)));
    Instant fromInstant = optionalInstant("from", from, Instant.EPOCH);
    Ranges.inRange("limit", limit, 1, MAX_RUNS_LIMIT);
    return runs.runs(job.name(), fromInstant, toInstant, limit)
        .map(list -> new JsonObject().put("job", job.name()).put("runs", list));
  }

  /**
   * The events one slot of the job caused and the commands they came from ({@link SlotEvents}); a
   * slot with no record has none. The slot need not be on the current definition: an edit keeps the
   * slots that ran under the one before.
   */
  public Future<JsonObject> slotEvents(String name, String slot) {
    return job(name)
        .compose(
            job -> {
              Instant nominal = parseInstant("slot", slot);
              String slotId = SlotCommands.slotId(job.name(), nominal);
              return slotEvents
                  .of(slotId)
                  .map(
                      found -> {
                        JsonArray events = new JsonArray();
                        found.events().forEach(e -> events.add(e.json()));
                        return new JsonObject()
                            .put("job", job.name())
                            .put("slot", nominal.toString())
                            .put("slotId", slotId)
                            .put("commands", found.commands())
                            .put("events", events)
                            .put("complete", found.complete());
                      });
            });
  }

  /**
   * Pauses or resumes the job: the schedule's pause (its timers skip slots while paused), answered
   * in this route's old shape.
   */
  public Future<Outcome> pause(IdempotencyKey key, String name, boolean paused, JsonObject body) {
    return job(name).compose(job -> pause(key, job, paused, body));
  }

  private Future<Outcome> pause(
      IdempotencyKey key, JobDefinition job, boolean paused, JsonObject body) {
    KeyedAnswers.require(key);
    RequestFields.of(body, Set.of()).throwIfInvalid();
    return scheduleOperations.pauseJob(key, job.name(), paused);
  }

  /** Fires one slot of the schedule now (manual trigger); a slot that ran answers "duplicate". */
  public Future<Outcome> trigger(IdempotencyKey key, String name, JsonObject body) {
    return job(name).compose(job -> trigger(key, job, body));
  }

  private Future<Outcome> trigger(IdempotencyKey key, JobDefinition job, JsonObject body) {
    KeyedAnswers.require(key);
    RequestFields f = RequestFields.of(body, Set.of("slot"));
    String raw = f.string("slot", 64);
    f.throwIfInvalid();
    Instant slot = parseInstant("slot", raw);
    requireOnSchedule(job, slot);
    return claimed.run(
        "jobs.trigger",
        key,
        new JsonObject().put("job", job.name()).put("body", body),
        "/v1/jobs/" + job.name() + "/runs",
        k -> fire(job, slot, Trigger.MANUAL).map(r -> ApiResponse.ok(result(r))));
  }

  /** Fires every slot in [from, to] as a backfill (or lists them, {@code dryRun}). */
  public Future<Outcome> backfill(IdempotencyKey key, String name, JsonObject body) {
    return job(name).compose(job -> backfill(key, job, body));
  }

  private Future<Outcome> backfill(IdempotencyKey key, JobDefinition job, JsonObject body) {
    KeyedAnswers.require(key);
    RequestFields f = RequestFields.of(body, Set.of("from", "to", "dryRun"));
    String fromRaw = f.string("from", 64);
    String toRaw = f.string("to", 64);
    Object dry = body.getValue("dryRun");
    if (dry != null && !(dry instanceof Boolean)) {
      f.reject("dryRun", "must be true or false");
    }
    f.throwIfInvalid();
    Instant from = parseInstant("from", fromRaw);
    Instant to = parseInstant("to", toRaw);
    if (to.isBefore(from)) {
      throw ApiProblem.invalid("invalid range", Map.of("to", "must not be before from"));
    }
    List<Instant> slots = Slots.between(job.schedule(), from.minusNanos(1), to, MAX_BACKFILL + 1);
    if (slots.size() > MAX_BACKFILL) {
      throw new ApiProblem(
          422, "Range too large", "at most " + MAX_BACKFILL + " slots per backfill");
    }
    JsonArray listed = new JsonArray();
    slots.forEach(s -> listed.add(s.toString()));
    if (Boolean.TRUE.equals(dry)) {
      // Nothing happens, so nothing is saved under the key.
      JsonObject answer =
          new JsonObject().put("job", job.name()).put("dryRun", true).put("slots", listed);
      return Future.succeededFuture(
          new Outcome(
              new StoredResponse(200, Map.of("Content-Type", "application/json"), answer.encode()),
              false));
    }
    return claimed.run(
        "jobs.backfill",
        key,
        new JsonObject().put("job", job.name()).put("body", body),
        "/v1/jobs/" + job.name() + "/backfill",
        k -> {
          Future<JsonArray> done = Future.succeededFuture(new JsonArray());
          for (Instant s : slots) {
            done = done.compose(acc -> fire(job, s, Trigger.BACKFILL).map(r -> acc.add(result(r))));
          }
          return done.map(
              results ->
                  ApiResponse.ok(
                      new JsonObject()
                          .put("job", job.name())
                          .put("dryRun", false)
                          .put("runs", results)));
        });
  }

  /**
   * Fires under the highest token the ledger has seen: never stale, never ahead of the holder. The
   * slot is recorded as fired by an operator, so it never becomes the point the timers plan from.
   */
  private Future<RunResult> fire(JobDefinition job, Instant slot, Trigger trigger) {
    return fire(job, slot, trigger, STALE_TOKEN_RETRIES);
  }

  /**
   * A timer that wins the job's lease between reading the highest token and firing makes that token
   * stale: read it again and fire again (a few times) rather than answer the operator 409 for a
   * race of the service's own.
   */
  private Future<RunResult> fire(JobDefinition job, Instant slot, Trigger trigger, int retries) {
    return ledger
        .highestToken(job.name())
        .compose(token -> timers.runner().fire(job, slot, token, 1, trigger))
        .recover(
            failure ->
                retries > 0 && isStaleToken(failure)
                    ? fire(job, slot, trigger, retries - 1)
                    : Future.failedFuture(failure));
  }

  private static boolean isStaleToken(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = t.getCause(), depth++) {
      if (t instanceof StaleFencingTokenException) {
        return true;
      }
    }
    return false;
  }

  private static JsonObject result(RunResult r) {
    return new JsonObject()
        .put("slotId", r.slot().slotId())
        .put("slot", r.slot().nominal() == null ? null : r.slot().nominal().toString())
        .put("status", r.slot().status() == null ? null : r.slot().status().name())
        .put("instanceId", r.slot().instanceId())
        .put("attempt", r.slot().attempt())
        .put("outcome", r.outcome().name())
        .put("duplicate", r.outcome() == RunResult.Outcome.DUPLICATE)
        .put("counts", new JsonObject(new java.util.HashMap<>(r.counts())))
        .put("error", r.error());
  }

  private static void requireOnSchedule(JobDefinition job, Instant slot) {
    Optional<Instant> on = job.schedule().nextAfter(slot.minusNanos(1));
    if (on.isEmpty() || !on.get().equals(slot)) {
      throw new ApiProblem(
          422,
          "Not a slot of the schedule",
          slot
              + " is not a slot of "
              + job.name()
              + (on.isPresent() ? "; the next one is " + on.get() : ""));
    }
  }

  private static Instant optionalInstant(String name, String raw, Instant fallback) {
    return raw == null || raw.isEmpty() ? fallback : parseInstant(name, raw);
  }

  /** Instants outside these years cannot be stored or scheduled (and overflow date arithmetic). */
  static final Instant EARLIEST = Instant.parse("0000-01-01T00:00:00Z");

  static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999999Z");

  private static Instant parseInstant(String field, String raw) {
    try {
      Instant instant = Instant.parse(raw);
      if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
        throw ApiProblem.invalid(
            "invalid " + field, Map.of(field, "an instant between the years 0 and 9999"));
      }
      return instant;
    } catch (DateTimeParseException e) {
      throw ApiProblem.invalid(
          "invalid " + field, Map.of(field, "an ISO-8601 instant such as 2026-11-29T10:00:00Z"));
    }
  }
}
