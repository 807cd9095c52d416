package io.slotkeeper.schedules;

import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.CommandService;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.Digests;
import io.slotkeeper.events.schedules.ScheduleCommand;
import io.slotkeeper.events.schedules.ScheduleCommand.DeclareSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.ReleaseSchedule;
import io.slotkeeper.events.schedules.ScheduleDefinition;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.job.JobSpecs;
import io.slotkeeper.scheduler.schedule.job.JobsFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the schedules what the jobs file declares, at start-up and before the timers start: each
 * file job is created or changed to match ({@code managedBy: FILE}), a no-op when it matches. The
 * command IDs derive from the file, the job, its definition and the schedule's version, so
 * instances starting together apply each declaration once, and a file changed back to an earlier
 * definition is applied again. A job whose pause an operator set in {@code job_controls} before it
 * was a schedule stays paused. A schedule the file no longer declares is kept, handed over to the
 * API and logged at WARN: nothing disappears because a line left a file.
 */
public final class JobsFileSync {

  private static final Logger log = LoggerFactory.getLogger(JobsFileSync.class);

  private static final String PAUSED = "SELECT job FROM job_controls WHERE paused";
  private static final String VERSIONS =
      "SELECT name, version, managed_by = 'FILE' AND source = $1 AND state <> 'DELETED' AS ours"
          + " FROM schedules";

  // Commands sent at once (see sendAll).
  static final int CHUNK = 500;

  private final CommandService commands;
  private final Pool pool;

  public JobsFileSync(CommandService commands, Pool pool) {
    this.commands = commands;
    this.pool = pool;
  }

  /**
   * What the sync did, and each schedule it declared or released as the write side answered (the
   * catalog starts from these, whatever the read table shows yet).
   */
  public record Result(
      int applied, int unchanged, int released, Collection<ScheduleSnapshot> schedules) {}

  /** Applies {@code file}; fails when a command or a read fails (start-up then fails). */
  public Future<Result> apply(JobsFile file) {
    String principal = "file:" + file.source();
    Map<String, Long> versions = new HashMap<>();
    Set<String> ours = new HashSet<>();
    Set<String> paused = new HashSet<>();
    return pool.preparedQuery(VERSIONS)
        .execute(Tuple.of(file.source()))
        .compose(
            rows -> {
              for (Row r : rows) {
                versions.put(r.getString("name"), r.getLong("version"));
                if (r.getBoolean("ours")) {
                  ours.add(r.getString("name"));
                }
              }
              return pool.preparedQuery(PAUSED).execute();
            })
        .compose(
            rows -> {
              rows.forEach(r -> paused.add(r.getString("job")));
              List<ScheduleCommand> declarations = new ArrayList<>();
              for (JobDefinition job : file.jobs()) {
                ScheduleDefinition definition = JobSpecs.definitionOf(job);
                ours.remove(job.name());
                declarations.add(
                    new DeclareSchedule(
                        declareId(file.source(), definition, versions.getOrDefault(job.name(), 0L)),
                        job.name(),
                        definition,
                        file.source(),
                        paused.contains(job.name()),
                        principal,
                        "declared in " + file.source()));
              }
              List<ScheduleCommand> releases = new ArrayList<>();
              for (String name : ours) {
                log.warn(
                    "schedule {} is no longer in {}: kept as it is, now managed through the API",
                    name,
                    file.source());
                releases.add(
                    new ReleaseSchedule(
                        DeterministicIds.nameBased(
                                "schedule-release",
                                file.source(),
                                name,
                                String.valueOf(versions.get(name)))
                            .toString(),
                        name,
                        file.source(),
                        principal,
                        "no longer in " + file.source()));
              }
              return sendAll(declarations)
                  .compose(
                      declared ->
                          sendAll(releases).map(released -> result(file, declared, released)));
            });
  }

  private Result result(
      JobsFile file,
      List<Future<CommandOutcome<ScheduleSnapshot>>> declared,
      List<Future<CommandOutcome<ScheduleSnapshot>>> released) {
    List<Future<CommandOutcome<ScheduleSnapshot>>> all = new ArrayList<>(declared);
    all.addAll(released);
    int applied = changed(declared);
    List<ScheduleSnapshot> touched = new ArrayList<>();
    for (Future<CommandOutcome<ScheduleSnapshot>> f : all) {
      ScheduleSnapshot snapshot = f.result().result();
      if (snapshot != null && snapshot.name() != null) {
        touched.add(snapshot);
      }
    }
    Result r = new Result(applied, declared.size() - applied, changed(released), touched);
    log.info(
        "jobs file {} applied: {} schedules changed, {} unchanged, {} released",
        file.source(),
        r.applied(),
        r.unchanged(),
        r.released());
    return r;
  }

  /**
   * Sends the commands a chunk at a time, each chunk once the one before is answered; fails at the
   * first failed command. All at once, 10,000 declarations kept the event loop for 9 s (three
   * instances starting together on 2 cores) and the schedule catalog's first read, queued behind
   * them, missed its start-up deadline.
   */
  private Future<List<Future<CommandOutcome<ScheduleSnapshot>>>> sendAll(
      List<ScheduleCommand> commands) {
    List<Future<CommandOutcome<ScheduleSnapshot>>> sent = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (int from = 0; from < commands.size(); from += CHUNK) {
      List<ScheduleCommand> chunk = commands.subList(from, Math.min(commands.size(), from + CHUNK));
      chain =
          chain.compose(
              v -> {
                List<Future<CommandOutcome<ScheduleSnapshot>>> part =
                    chunk.stream().map(this::send).toList();
                sent.addAll(part);
                return Future.all(part).<Void>mapEmpty();
              });
    }
    return chain.map(v -> sent);
  }

  private Future<CommandOutcome<ScheduleSnapshot>> send(ScheduleCommand command) {
    return Future.fromCompletionStage(commands.<ScheduleSnapshot>send(command));
  }

  /** How many of the answers changed a schedule (not a no-op, not another's duplicate). */
  private static int changed(List<Future<CommandOutcome<ScheduleSnapshot>>> sent) {
    int applied = 0;
    for (Future<CommandOutcome<ScheduleSnapshot>> f : sent) {
      CommandOutcome<ScheduleSnapshot> o = f.result();
      if (!o.duplicate() && !o.result().noop()) {
        applied++;
      }
    }
    return applied;
  }

  /**
   * One ID per (file, job, definition, version): the same declaration from any instance is one
   * command.
   */
  static String declareId(String source, ScheduleDefinition definition, long version) {
    String digest =
        Digests.sha256Hex(JobSpecs.json(definition).toString().getBytes(StandardCharsets.UTF_8));
    return DeterministicIds.nameBased(
            "schedule-file", source, definition.name(), digest, String.valueOf(version))
        .toString();
  }
}
