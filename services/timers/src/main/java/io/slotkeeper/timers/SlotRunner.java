package io.slotkeeper.timers;

import io.slotkeeper.domain.command.CommandBatcher;
import io.slotkeeper.domain.command.CommandOutcome;
import io.slotkeeper.domain.slots.SlotSnapshot;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.DeterministicIds;
import io.slotkeeper.events.StorableText;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FailSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.metrics.SlotkeeperMetrics.SlotOutcome;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Fires one slot through the ledger and, only when the ledger accepts the fire, runs the job's
 * handler on a worker thread and records its completion or failure. Used by the timers and by the
 * operator's manual trigger alike.
 */
public final class SlotRunner {

  private static final Logger log = LoggerFactory.getLogger(SlotRunner.class);

  private final Vertx vertx;
  private final CommandBatcher commands;
  private final Map<String, JobHandler> handlers;
  private final String instanceId;
  private final SlotkeeperMetrics metrics;

  public SlotRunner(
      Vertx vertx, CommandBatcher commands, Map<String, JobHandler> handlers, String instanceId) {
    this(vertx, commands, handlers, instanceId, SlotkeeperMetrics.none());
  }

  public SlotRunner(
      Vertx vertx,
      CommandBatcher commands,
      Map<String, JobHandler> handlers,
      String instanceId,
      SlotkeeperMetrics metrics) {
    this.vertx = vertx;
    this.commands = commands;
    this.handlers = Map.copyOf(handlers);
    this.instanceId = instanceId;
    this.metrics = metrics;
  }

  /** The meters slots are counted on (the timers count skipped and missed slots there too). */
  public SlotkeeperMetrics metrics() {
    return metrics;
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
    // A first attempt almost always creates the slot: sent as a creation, it skips reading the
    // slot's (empty) stream; an existing slot makes it fall back to the regular fire.
    CompletableFuture<CommandOutcome<SlotSnapshot>> sent =
        attempt == 1 ? commands.sendCreating(fire) : commands.send(fire);
    return Future.fromCompletionStage(sent, vertx.getOrCreateContext())
        .compose(
            outcome -> {
              SlotSnapshot slot = outcome.result();
              boolean mine =
                  !outcome.duplicate() && slot.accepted() && instanceId.equals(slot.instanceId());
              if (!mine) {
                metrics.slot(job.name(), SlotOutcome.DUPLICATE);
                SlotLog.line(log.atInfo(), job.name(), slotId, nominal, instanceId, token)
                    .addKeyValue("commandId", fire.commandId())
                    .addKeyValue("outcome", "duplicate")
                    .addKeyValue(
                        "reason",
                        outcome.duplicate()
                            ? "already fired by this command"
                            : "ledger: " + slot.status())
                    .log("duplicate fire rejected");
                return Future.succeededFuture(
                    new RunResult(slot, RunResult.Outcome.DUPLICATE, Map.of(), null, 0));
              }
              countFire(job, nominal, attempt, backfill);
              return execute(job, slot);
            });
  }

  /**
   * The first accepted fire of a slot counts as fired (with its lag) or backfilled; retries and
   * takeovers of the same slot do not count again, so fired stays comparable with expected.
   */
  private void countFire(JobDefinition job, Instant nominal, int attempt, boolean backfill) {
    if (backfill) {
      metrics.slot(job.name(), SlotOutcome.BACKFILLED);
    } else if (attempt == 1) {
      metrics.slot(job.name(), SlotOutcome.FIRED);
      metrics.slotLag(job.name(), Duration.between(nominal, Instant.now()));
    }
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
              metrics.slotDuration(job.name(), Duration.ofMillis(millis));
              String prefix = "-" + slot.attempt() + "-" + slot.fencingToken();
              if (done.succeeded()) {
                Map<String, Long> counts = done.result() == null ? Map.of() : done.result();
                String commandId =
                    DeterministicIds.forSlotCommand(
                        job.name(), slot.nominal(), "complete" + prefix);
                return send(new CompleteSlot(
                        commandId, slot.slotId(), instanceId, slot.fencingToken(), counts, millis))
                    .map(
                        ok -> {
                          metrics.slot(job.name(), SlotOutcome.COMPLETED);
                          outcomeLine(log.atInfo(), slot, commandId, "completed", millis)
                              .addKeyValue("counts", counts)
                              .log("slot completed");
                          return new RunResult(
                              slot, RunResult.Outcome.COMPLETED, counts, null, millis);
                        });
              }
              String error = String.valueOf(done.cause());
              String commandId =
                  DeterministicIds.forSlotCommand(job.name(), slot.nominal(), "fail" + prefix);
              return send(new FailSlot(
                      commandId, slot.slotId(), instanceId, slot.fencingToken(), truncate(error)))
                  .map(
                      ok -> {
                        metrics.slot(job.name(), SlotOutcome.FAILED);
                        outcomeLine(log.atWarn(), slot, commandId, "failed", millis)
                            .addKeyValue("error", error)
                            .log("slot failed");
                        return new RunResult(
                            slot, RunResult.Outcome.FAILED, Map.of(), error, millis);
                      });
            });
  }

  private LoggingEventBuilder outcomeLine(
      LoggingEventBuilder b, SlotSnapshot slot, String commandId, String outcome, long millis) {
    return SlotLog.line(
            b, slot.job(), slot.slotId(), slot.nominal(), instanceId, slot.fencingToken())
        .addKeyValue("commandId", commandId)
        .addKeyValue("attempt", slot.attempt())
        .addKeyValue("outcome", outcome)
        .addKeyValue("durationMs", millis);
  }

  private <R> Future<CommandOutcome<R>> send(Command command) {
    return Future.fromCompletionStage(commands.<R>send(command), vertx.getOrCreateContext());
  }

  /** At most 2000 characters, storable (an exception's text may hold any character). */
  private static String truncate(String s) {
    return StorableText.sanitize(s.length() <= 2000 ? s : s.substring(0, 2000));
  }
}
