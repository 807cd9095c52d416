package io.slotkeeper.timers;

import io.slotkeeper.domain.command.CommandService;
import io.slotkeeper.domain.slots.SlotSnapshot;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FailSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires one slot through the ledger and, only when the ledger accepts the fire, runs the job's
 * handler on a worker thread and records its completion or failure. Used by the timers and by the
 * operator's manual trigger alike.
 */
public final class SlotRunner {

  private static final Logger log = LoggerFactory.getLogger(SlotRunner.class);

  private final Vertx vertx;
  private final CommandService commands;
  private final Map<String, JobHandler> handlers;
  private final String instanceId;

  public SlotRunner(
      Vertx vertx, CommandService commands, Map<String, JobHandler> handlers, String instanceId) {
    this.vertx = vertx;
    this.commands = commands;
    this.handlers = Map.copyOf(handlers);
    this.instanceId = instanceId;
  }

  /** Whether a handler exists for the job. */
  public boolean handles(JobDefinition job) {
    return handlers.containsKey(job.handler());
  }

  /** Fires attempt {@code attempt} of the slot under {@code token} and runs it if accepted. */
  public Future<RunResult> fire(
      JobDefinition job, Instant nominal, long token, int attempt, boolean backfill) {
    String slotId = DeterministicIds.forSlot(job.name(), nominal);
    FireSlot fire =
        new FireSlot(
            // Per attempt, instance and token: the same fire re-sent is a duplicate; another
            // instance's fire is a different command that the slot itself accepts or refuses.
            DeterministicIds.forSlotCommand(
                job.name(), nominal, "fire-" + attempt + "-" + instanceId + "-" + token),
            slotId,
            job.name(),
            nominal,
            instanceId,
            token,
            attempt,
            backfill);
    return this.<SlotSnapshot>send(fire)
        .compose(
            outcome -> {
              SlotSnapshot slot = outcome.result();
              boolean mine =
                  !outcome.duplicate() && slot.accepted() && instanceId.equals(slot.instanceId());
              if (!mine) {
                log.info(
                    "duplicate fire rejected: job={} slot={} nominal={} instance={} token={} ({})",
                    job.name(),
                    slotId,
                    nominal,
                    instanceId,
                    token,
                    outcome.duplicate()
                        ? "already fired by this command"
                        : "ledger: " + slot.status());
                return Future.succeededFuture(
                    new RunResult(slot, RunResult.Outcome.DUPLICATE, Map.of(), null, 0));
              }
              return execute(job, slot);
            });
  }

  private Future<RunResult> execute(JobDefinition job, SlotSnapshot slot) {
    JobHandler handler = handlers.get(job.handler());
    SlotRun run =
        new SlotRun(job.name(), slot.nominal(), slot.slotId(), slot.attempt(), job.params());
    long started = System.nanoTime();
    return vertx
        .executeBlocking(() -> handler.run(run), false)
        .transform(
            done -> {
              long millis = (System.nanoTime() - started) / 1_000_000;
              String prefix = "-" + slot.attempt() + "-" + slot.fencingToken();
              if (done.succeeded()) {
                Map<String, Long> counts = done.result() == null ? Map.of() : done.result();
                return send(new CompleteSlot(
                        DeterministicIds.forSlotCommand(
                            job.name(), slot.nominal(), "complete" + prefix),
                        slot.slotId(),
                        instanceId,
                        slot.fencingToken(),
                        counts,
                        millis))
                    .map(
                        ok -> {
                          log.info(
                              "slot completed: job={} nominal={} attempt={} token={} instance={} durationMs={} counts={}",
                              job.name(),
                              slot.nominal(),
                              slot.attempt(),
                              slot.fencingToken(),
                              instanceId,
                              millis,
                              counts);
                          return new RunResult(
                              slot, RunResult.Outcome.COMPLETED, counts, null, millis);
                        });
              }
              String error = String.valueOf(done.cause());
              log.warn(
                  "slot failed: job={} nominal={} attempt={} token={} instance={} error={}",
                  job.name(),
                  slot.nominal(),
                  slot.attempt(),
                  slot.fencingToken(),
                  instanceId,
                  error);
              return send(new FailSlot(
                      DeterministicIds.forSlotCommand(job.name(), slot.nominal(), "fail" + prefix),
                      slot.slotId(),
                      instanceId,
                      slot.fencingToken(),
                      truncate(error)))
                  .map(
                      ok -> new RunResult(slot, RunResult.Outcome.FAILED, Map.of(), error, millis));
            });
  }

  private <R> Future<io.slotkeeper.domain.command.CommandOutcome<R>> send(Command command) {
    return Future.fromCompletionStage(commands.<R>send(command), vertx.getOrCreateContext());
  }

  private static String truncate(String s) {
    return s.length() <= 2000 ? s : s.substring(0, 2000);
  }
}
