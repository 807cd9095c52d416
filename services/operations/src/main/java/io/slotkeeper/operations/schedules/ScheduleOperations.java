package io.slotkeeper.operations.schedules;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.schedules.ManagedBy;
import io.slotkeeper.events.schedules.ScheduleCommand;
import io.slotkeeper.events.schedules.ScheduleCommand.ChangeSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.CreateSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.DeleteSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.PauseSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.ResumeSchedule;
import io.slotkeeper.events.schedules.ScheduleDefinition;
import io.slotkeeper.idempotency.IdempotencyKey;
import io.slotkeeper.idempotency.StoredResponse;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.leases.RedisLeases;
import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.idempotency.OneCommandOperations;
import io.slotkeeper.operations.idempotency.Outcome;
import io.slotkeeper.operations.jobs.JobRunQueries;
import io.slotkeeper.operations.problem.ApiProblem;
import io.slotkeeper.operations.support.ApiResponse;
import io.slotkeeper.operations.support.PathIds;
import io.slotkeeper.operations.support.Reads;
import io.slotkeeper.operations.support.RequestFields;
import io.slotkeeper.platform.json.Json;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.Slots;
import io.slotkeeper.scheduler.schedule.job.DryRun;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import io.slotkeeper.schedules.ScheduleSnapshot;
import io.slotkeeper.schedules.ScheduleState;
import io.slotkeeper.schedules.StoredSchedules;
import io.slotkeeper.timers.Timers;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schedules, protocol-free (shared by HTTP and gRPC): create, change, pause, resume and delete as
 * commands of the {@code Schedule} aggregate under the caller's Idempotency-Key, with the
 * schedule's version as an entity tag ({@code If-Match} in, {@code ETag} out); reads from the
 * {@code schedules} read table; dry runs that compute and write nothing.
 */
public final class ScheduleOperations {

  private static final Logger log = LoggerFactory.getLogger(ScheduleOperations.class);

  public static final String CREATE = "schedules.create";
  public static final String CHANGE = "schedules.change";
  public static final String PAUSE = "schedules.pause";
  public static final String RESUME = "schedules.resume";
  public static final String DELETE = "schedules.delete";

  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1_000;
  public static final int DEFAULT_DRY_RUN_HOURS = 48;
  public static final int MAX_DRY_RUN_HOURS = 720;

  /** Names usable in a path and a metric label. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private static final Pattern ENTITY_TAG = Pattern.compile("(?:W/)?\"?(\\d{1,18})\"?");

  private final OneCommandOperations oneCommand;
  private final ScheduleQueries queries;
  private final JobRunQueries runs;
  private final RedisLeases leases;
  private final JobSpecs.Rules rules;
  private final SlotClock clock;
  private final Timers timers;

  public ScheduleOperations(
      OneCommandOperations oneCommand,
      ScheduleQueries queries,
      JobRunQueries runs,
      RedisLeases leases,
      JobSpecs.Rules rules,
      Timers timers) {
    this.oneCommand = oneCommand;
    this.queries = queries;
    this.runs = runs;
    this.leases = leases;
    this.rules = rules;
    this.clock = timers.clock();
    this.timers = timers;
  }

  /** What a write asks beyond its body: a dry run over {@code hours}. */
  public record DryRunRequest(boolean dryRun, int hours) {

    public static final DryRunRequest NONE = new DryRunRequest(false, DEFAULT_DRY_RUN_HOURS);
  }

  /** Creates a schedule; {@code body} is the definition of {@code POST /v1/schedules}. */
  public Future<Outcome> create(IdempotencyKey key, JsonObject body, DryRunRequest dry) {
    JobDefinition job = read(body, null);
    if (dry.dryRun()) {
      return dryRun(Optional.empty(), job, dry.hours());
    }
    KeyedAnswers.require(key);
    ScheduleDefinition definition = JobSpecs.definitionOf(job);
    CreateSchedule cmd =
        new CreateSchedule(
            DeterministicIds.forIdempotencyKey(CREATE, key.value()),
            job.name(),
            definition,
            ManagedBy.API,
            null,
            key.principal(),
            null);
    return oneCommand.<ScheduleSnapshot>command(
        CREATE,
        key,
        body,
        "/v1/schedules",
        cmd,
        o -> answer(o, 201, "/v1/schedules/" + o.result().name()));
  }

  /** Replaces a schedule's definition; {@code ifMatch} (its version) is required. */
  public Future<Outcome> change(
      IdempotencyKey key, String name, String ifMatch, JsonObject body, DryRunRequest dry) {
    requireName(name);
    JobDefinition job = read(body, name);
    if (dry.dryRun()) {
      // The read table, not this instance's catalog (up to a poll behind): a dry run just after
      // a create or a change compares with what was written.
      return current(name).compose(current -> dryRun(current, job, dry.hours()));
    }
    KeyedAnswers.require(key);
    if (ifMatch == null || ifMatch.isBlank()) {
      throw new ApiProblem(
          428,
          "Precondition Required",
          "a change needs If-Match with the schedule's version (its ETag), e.g. If-Match: \"3\"");
    }
    long version = version(ifMatch);
    ChangeSchedule cmd =
        new ChangeSchedule(
            DeterministicIds.forIdempotencyKey(CHANGE, key.value()),
            name,
            JobSpecs.definitionOf(job),
            ManagedBy.API,
            null,
            version,
            key.principal(),
            null);
    return oneCommand.<ScheduleSnapshot>command(
        CHANGE,
        key,
        new JsonObject().put("name", name).put("ifMatch", version).put("body", body),
        "/v1/schedules/" + name,
        cmd,
        o -> answer(o, 200, null));
  }

  /** Pauses or resumes; {@code body} is the optional {@code {"reason": ...}}. */
  public Future<Outcome> pause(
      IdempotencyKey key, String name, String ifMatch, JsonObject body, boolean paused) {
    requireName(name);
    return pauseCommand(
        paused ? PAUSE : RESUME,
        key,
        name,
        ifMatch,
        body,
        paused,
        "/v1/schedules/" + name + (paused ? "/pause" : "/resume"),
        o -> answer(o, 200, null));
  }

  /**
   * The same, as the deprecated {@code /v1/jobs/{job}/pause|resume} answer it ({@code {"job",
   * "paused"}}), under the operation names those routes always had.
   */
  public Future<Outcome> pauseJob(IdempotencyKey key, String name, boolean paused) {
    requireName(name);
    return pauseCommand(
        paused ? "jobs.pause" : "jobs.resume",
        key,
        name,
        null,
        new JsonObject(),
        paused,
        "/v1/jobs/" + name + (paused ? "/pause" : "/resume"),
        o ->
            ApiResponse.ok(
                new JsonObject()
                    .put("job", name)
                    .put("paused", o.result().state() == ScheduleState.PAUSED)));
  }

  private Future<Outcome> pauseCommand(
      String operation,
      IdempotencyKey key,
      String name,
      String ifMatch,
      JsonObject body,
      boolean paused,
      String instance,
      java.util.function.Function<CommandOutcome<ScheduleSnapshot>, ApiResponse> respond) {
    KeyedAnswers.require(key);
    String reason = reason(body);
    Long version = ifMatch == null ? null : version(ifMatch);
    String id = DeterministicIds.forIdempotencyKey(operation, key.value());
    ScheduleCommand cmd =
        paused
            ? new PauseSchedule(id, name, version, key.principal(), reason)
            : new ResumeSchedule(id, name, version, key.principal(), reason);
    return oneCommand.<ScheduleSnapshot>command(
        operation,
        key,
        new JsonObject().put("name", name).put("ifMatch", version).put("body", body),
        instance,
        cmd,
        respond);
  }

  /** Deletes a schedule for good (its name is not used again). */
  public Future<Outcome> delete(IdempotencyKey key, String name, String ifMatch, JsonObject body) {
    requireName(name);
    KeyedAnswers.require(key);
    String reason = reason(body);
    Long version = ifMatch == null ? null : version(ifMatch);
    DeleteSchedule cmd =
        new DeleteSchedule(
            DeterministicIds.forIdempotencyKey(DELETE, key.value()),
            name,
            version,
            ManagedBy.API,
            key.principal(),
            reason);
    return oneCommand.<ScheduleSnapshot>command(
        DELETE,
        key,
        new JsonObject().put("name", name).put("ifMatch", version).put("body", body),
        "/v1/schedules/" + name,
        cmd,
        o -> answer(o, 200, null));
  }

  /** A page of schedules by name, after {@code after}, optionally in one state. */
  public Future<JsonObject> list(String state, String after, int limit) {
    if (state != null) {
      try {
        ScheduleState.valueOf(state);
      } catch (IllegalArgumentException e) {
        throw ApiProblem.invalid(
            "invalid state", Map.of("state", "one of ACTIVE, PAUSED, DELETED"));
      }
    }
    if (after != null) {
      PathIds.require("after", after);
    }
    return queries
        .page(state, after, limit)
        .compose(this::withLeases)
        .map(
            page -> {
              JsonObject out = new JsonObject().put("schedules", page);
              if (page.size() == limit) {
                out.put("next", page.getJsonObject(page.size() - 1).getString("name"));
              }
              return out;
            });
  }

  /**
   * Each live row with the holder and fencing token of its partition's lease, read for the whole
   * page in one round trip (a deleted schedule has none: no timer fires it). When Redis does not
   * answer, the page is still answered, without them: the list is what an operator reads first when
   * something is down.
   */
  private Future<JsonArray> withLeases(JsonArray page) {
    List<JsonObject> live = new ArrayList<>();
    page.forEach(
        r -> {
          if (!isDeleted((JsonObject) r)) {
            live.add((JsonObject) r);
          }
        });
    return leases
        .grants(live.stream().map(r -> timers.leaseName(r.getString("name"))).toList())
        .map(
            grants -> {
              for (int i = 0; i < live.size(); i++) {
                putLease(live.get(i), grants.get(i));
              }
              return page;
            })
        .recover(
            e -> {
              log.warn("schedules listed without their lease holders: {}", e.toString());
              return Future.succeededFuture(page);
            });
  }

  /** The lease's holder (the instance that fires the schedule) and the token its fires carry. */
  private static JsonObject putLease(JsonObject row, Optional<Lease> lease) {
    return row.put("leaseHolder", lease.map(Lease::owner).orElse(null))
        .put("fencingToken", lease.map(Lease::fencingToken).orElse(null));
  }

  /**
   * The schedule's definition as the read table has it now: empty when unknown or deleted. Fresher
   * than an instance's catalog, which polls that table.
   */
  public Future<Optional<JobDefinition>> current(String name) {
    return queries
        .byName(name)
        .map(row -> row.filter(r -> !isDeleted(r)).map(r -> jobOf(r.getJsonObject("definition"))));
  }

  /** One schedule with its lease holder, next slots and last runs; 404 when unknown or deleted. */
  public Future<JsonObject> get(String name) {
    return row(name).compose(this::describe);
  }

  /**
   * The schedule's row as it is, a deleted one included (a 404 problem only when there is none):
   * what a read that waits for a write ({@code ReadYourWrites}) compares versions with.
   */
  public Future<JsonObject> row(String name) {
    requireName(name);
    return Reads.found(queries.byName(name), "no schedule named " + name);
  }

  /** The row with its lease holder, next slots and last runs; a 404 problem when deleted. */
  public Future<JsonObject> describe(JsonObject row) {
    String name = row.getString("name");
    if (isDeleted(row)) {
      return Future.failedFuture(ApiProblem.notFound("schedule " + name + " was deleted"));
    }
    Instant now = clock.now();
    JobDefinition job = jobOf(row.getJsonObject("definition"));
    JsonArray next = new JsonArray();
    Slots.between(job.schedule(), now, Instant.MAX, 3).forEach(s -> next.add(s.toString()));
    return Future.all(
            leases.grant(timers.leaseName(name)),
            runs.runs(name, Instant.EPOCH, now.plus(Duration.ofDays(1)), 10))
        .map(
            all ->
                putLease(row, all.<Optional<Lease>>resultAt(0))
                    .put("nextSlots", next)
                    .put("lastRuns", all.<JsonArray>resultAt(1)));
  }

  private static boolean isDeleted(JsonObject row) {
    return ScheduleState.DELETED.name().equals(row.getString("state"));
  }

  /** The schedule's version as an entity tag, for the {@code ETag} of a read. */
  public static String entityTag(long version) {
    return "\"" + version + "\"";
  }

  private JobDefinition read(JsonObject body, String pathName) {
    JsonNode node;
    try {
      node = Json.mapper().readTree(body.encode());
    } catch (JsonProcessingException e) {
      throw ApiProblem.badRequest("the body is not JSON");
    }
    Map<String, String> errors = new LinkedHashMap<>();
    if (pathName != null && !node.has("name") && node.isObject()) {
      ((com.fasterxml.jackson.databind.node.ObjectNode) node).put("name", pathName);
    }
    JsonNode name = node.get("name");
    if (name != null && name.isTextual()) {
      if (!NAME.matcher(name.textValue()).matches()) {
        errors.put("name", "1 to 128 of A-Z a-z 0-9 . _ - (starting with a letter or digit)");
      } else if (pathName != null && !pathName.equals(name.textValue())) {
        errors.put("name", "must be the name in the path, " + pathName);
      }
    }
    Optional<JobDefinition> job = JobSpecs.read(node, "", rules, errors);
    if (!errors.isEmpty() || job.isEmpty()) {
      throw ApiProblem.invalid("the schedule is invalid", errors);
    }
    return job.get();
  }

  private static JobDefinition jobOf(JsonObject definition) {
    return StoredSchedules.jobOf(definition.encode());
  }

  private Future<Outcome> dryRun(Optional<JobDefinition> current, JobDefinition next, int hours) {
    DryRun.Result r = DryRun.compare(current, next, clock.now(), Duration.ofHours(hours));
    JsonArray changes = new JsonArray();
    for (DryRun.ClockChange c : r.clockChanges()) {
      JsonArray slots = new JsonArray();
      c.slots().forEach(s -> slots.add(s.toString()));
      changes.add(
          new JsonObject()
              .put("definition", c.definition())
              .put("zone", c.zone())
              .put("at", c.at().toString())
              .put("kind", c.kind())
              .put("localFrom", c.localFrom().toString())
              .put("localTo", c.localTo().toString())
              .put("policy", c.policy())
              .put("slots", slots));
    }
    JsonObject body =
        new JsonObject()
            .put("name", next.name())
            .put("dryRun", true)
            .put("from", r.from().toString())
            .put("to", r.to().toString())
            .put("current", instants(r.current()))
            .put("proposed", instants(r.proposed()))
            .put("truncated", r.truncated())
            .put("clockChanges", changes);
    // Nothing happens, so nothing is saved under the key.
    return Future.succeededFuture(
        new Outcome(
            new StoredResponse(200, Map.of("Content-Type", "application/json"), body.encode()),
            false));
  }

  private static JsonArray instants(java.util.List<Instant> list) {
    JsonArray out = new JsonArray();
    list.forEach(i -> out.add(i.toString()));
    return out;
  }

  private static ApiResponse answer(
      CommandOutcome<ScheduleSnapshot> o, int status, String location) {
    ScheduleSnapshot s = o.result();
    JsonObject body =
        new JsonObject()
            .put("name", s.name())
            .put("definition", new JsonObject(JobSpecs.json(s.definition()).toString()))
            .put("version", s.version())
            .put("state", s.state().name())
            .put("managedBy", s.managedBy().name())
            .put("source", s.source())
            .put("noop", s.noop());
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("ETag", entityTag(s.version()));
    if (location != null) {
      headers.put("Location", location);
    }
    return new ApiResponse(status, body, headers);
  }

  private static String reason(JsonObject body) {
    RequestFields f = RequestFields.of(body, Set.of("reason"));
    String reason = f.optionalString("reason", RequestFields.MAX_STRING);
    f.throwIfInvalid();
    return reason;
  }

  private static long version(String ifMatch) {
    java.util.regex.Matcher m = ENTITY_TAG.matcher(ifMatch.trim());
    if (!m.matches()) {
      throw ApiProblem.invalid(
          "invalid If-Match",
          Map.of("If-Match", "the schedule's version as an entity tag, e.g. \"3\""));
    }
    return Long.parseLong(m.group(1));
  }

  private static void requireName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      PathIds.require("name", name == null ? "" : name);
      throw ApiProblem.invalid(
          "invalid name",
          Map.of("name", "1 to 128 of A-Z a-z 0-9 . _ - (starting with a letter or digit)"));
    }
  }
}
