package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.StorableText;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FailSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.metrics.SlotkeeperMetrics.SlotOutcome;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.slots.AttemptFailedException;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotCommands;
import io.slotkeeper.slots.SlotRun;
import io.slotkeeper.slots.SlotSnapshot;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

  /**
   * How long a ledger command may take before its caller gives up on it. Generous, because a
   * catch-up queues thousands of commands in the batcher; finite, because a statement that stalls
   * (a dead connection) must not keep a slot "in flight" for ever. A command given up on may still
   * land: the slot then stays FIRED under this holder, and its takeover fires the next attempt.
   */
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  /** Who fires a slot: its timer, or an operator (a manual run, a backfill). */
  public enum Trigger {
    TIMER,
    MANUAL,
    BACKFILL
  }

  /** The ledger's answer to a fire: the slot, and whether this instance is to run it. */
  public record Claim(SlotSnapshot slot, boolean mine) {}

  private final Vertx vertx;
  private final CommandBatcher commands;
  private final Map<String, JobHandler> handlers;
  private final String instanceId;
  private final SlotkeeperMetrics metrics;
  private final SlotClock clock;

  public SlotRunner(
      Vertx vertx, CommandBatcher commands, Map<String, JobHandler> handlers, String instanceId) {
    this(vertx, commands, handlers, instanceId, SlotkeeperMetrics.none(), SlotClock.system());
  }

  /** A runner whose slot lag is measured against {@code clock} (the timers' clock). */
  public SlotRunner(
      Vertx vertx,
      CommandBatcher commands,
      Map<String, JobHandler> handlers,
      String instanceId,
      SlotkeeperMetrics metrics,
      SlotClock clock) {
    this.clock = clock;
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
      JobDefinition job, Instant nominal, long token, int attempt, Trigger trigger) {
    return claim(job, nominal, token, attempt, trigger)
        .compose(
            claim ->
                claim.mine()
                    ? execute(job, claim.slot())
                    : Future.succeededFuture(
                        new RunResult(
                            claim.slot(), RunResult.Outcome.DUPLICATE, Map.of(), null, 0)));
  }

  /**
   * Sends the fire only: the ledger records the slot (or refuses a duplicate). Once this completes,
   * the slot has its record whatever the handler then does.
   */
  public Future<Claim> claim(
      JobDefinition job, Instant nominal, long token, int attempt, Trigger trigger) {
    FireSlot fire =
        SlotCommands.fire(
            job.name(), nominal, instanceId, token, attempt, trigger != Trigger.TIMER);
    // A first attempt almost always creates the slot: sent as a creation, it skips reading the
    // slot's (empty) stream; an existing slot makes it fall back to the regular fire.
    CompletableFuture<CommandOutcome<SlotSnapshot>> sent =
        attempt == 1 ? commands.sendCreating(fire) : commands.send(fire);
    return within(Future.fromCompletionStage(sent, vertx.getOrCreateContext()))
        .map(
            outcome -> {
              SlotSnapshot slot = outcome.result();
              boolean mine =
                  !outcome.duplicate() && slot.accepted() && instanceId.equals(slot.instanceId());
              if (mine) {
                countFire(job, nominal, attempt, trigger);
              } else {
                metrics.slot(job.name(), SlotOutcome.DUPLICATE);
                SlotLog.line(log.atInfo(), job.name(), fire.slotId(), nominal, instanceId, token)
                    .addKeyValue("commandId", fire.commandId())
                    .addKeyValue("outcome", "duplicate")
                    .addKeyValue(
                        "reason",
                        outcome.duplicate()
                            ? "already fired by this command"
                            : "ledger: " + slot.status())
                    .log("duplicate fire rejected");
              }
              return new Claim(slot, mine);
            });
  }

  /**
   * The first accepted fire of a slot counts as fired (with its lag, for a timer's) or backfilled;
   * retries and takeovers of the same slot do not count again, so fired stays comparable with
   * expected.
   */
  private void countFire(JobDefinition job, Instant nominal, int attempt, Trigger trigger) {
    if (trigger == Trigger.BACKFILL) {
      metrics.slot(job.name(), SlotOutcome.BACKFILLED);
    } else if (attempt == 1) {
      metrics.slot(job.name(), SlotOutcome.FIRED);
      if (trigger == Trigger.TIMER) {
        metrics.slotLag(job.name(), Duration.between(nominal, clock.now()));
      }
    }
  }

  /** Runs the handler of a claimed slot and records its completion or failure. */
  public Future<RunResult> execute(JobDefinition job, SlotSnapshot slot) {
    JobHandler handler = handlers.get(job.handler());
    SlotRun run =
        new SlotRun(
            job.name(),
            slot.nominal(),
            slot.slotId(),
            slot.attempt(),
            job.params(),
            slot.fencingToken());
    long started = System.nanoTime();
    return vertx
        .executeBlocking(() -> handler.run(run), false)
        .transform(
            done -> {
              long millis = (System.nanoTime() - started) / 1_000_000;
              metrics.slotDuration(job.name(), Duration.ofMillis(millis));
              if (done.succeeded()) {
                Map<String, Long> counts = done.result() == null ? Map.of() : done.result();
                CompleteSlot complete = SlotCommands.complete(slot, instanceId, counts, millis);
                return send(complete)
                    .map(
                        ok -> {
                          metrics.slot(job.name(), SlotOutcome.COMPLETED);
                          outcomeLine(log.atInfo(), slot, complete.commandId(), "completed", millis)
                              .addKeyValue("counts", counts)
                              .log("slot completed");
                          return new RunResult(
                              slot, RunResult.Outcome.COMPLETED, counts, null, millis);
                        });
              }
              String error = String.valueOf(done.cause());
              // A handler may say the attempt is not to be retried, or not before a delay.
              AttemptFailedException said =
                  done.cause() instanceof AttemptFailedException
                      ? (AttemptFailedException) done.cause()
                      : AttemptFailedException.retryable(error);
              FailSlot fail = SlotCommands.fail(slot, instanceId, truncate(error));
              return send(fail)
                  .map(
                      ok -> {
                        metrics.slot(job.name(), SlotOutcome.FAILED);
                        outcomeLine(log.atWarn(), slot, fail.commandId(), "failed", millis)
                            .addKeyValue("error", error)
                            .log("slot failed");
                        return new RunResult(
                            slot,
                            RunResult.Outcome.FAILED,
                            Map.of(),
                            error,
                            millis,
                            said.retryable(),
                            said.retryAfter().orElse(null));
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
    return within(
        Future.fromCompletionStage(commands.<R>send(command), vertx.getOrCreateContext()));
  }

  private static <T> Future<T> within(Future<T> sent) {
    return sent.timeout(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** At most 2000 characters, storable (an exception's text may hold any character). */
  private static String truncate(String s) {
    return StorableText.sanitize(s.length() <= 2000 ? s : s.substring(0, 2000));
  }
}
