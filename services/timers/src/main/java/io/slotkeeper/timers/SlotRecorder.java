package io.slotkeeper.timers;

import io.slotkeeper.commands.CommandBatcher;
import io.slotkeeper.events.Command;
import io.slotkeeper.leases.Lease;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.metrics.SlotkeeperMetrics.SlotOutcome;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.slots.SlotCommands;
import io.slotkeeper.timers.TimerHealth.Step;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the slots a timer decides not to run: missed (outside the catch-up window or dropped by
 * the catch-up policy) and skipped (overlap, pause). Each record has a deadline; one that fails is
 * counted as a fault of its step and reported to the caller, whose slot then has no record.
 */
final class SlotRecorder {

  private static final Logger log = LoggerFactory.getLogger(SlotRecorder.class);

  private final Vertx vertx;
  private final String job;
  private final CommandBatcher commands;
  private final SlotkeeperMetrics metrics;
  private final TimerHealth health;
  private final SlotClock clock;
  private final String instanceId;
  private final Supplier<Optional<Lease>> lease;

  SlotRecorder(
      Vertx vertx,
      String job,
      CommandBatcher commands,
      SlotkeeperMetrics metrics,
      TimerHealth health,
      SlotClock clock,
      String instanceId,
      Supplier<Optional<Lease>> lease) {
    this.vertx = vertx;
    this.job = job;
    this.commands = commands;
    this.metrics = metrics;
    this.health = health;
    this.clock = clock;
    this.instanceId = instanceId;
    this.lease = lease;
  }

  /** Records a slot as missed. */
  Future<Void> miss(Instant slot, String reason) {
    // Almost always a slot nobody touched: recorded without reading its stream first.
    return record(SlotCommands.miss(job, slot, reason), true, slot, SlotOutcome.MISSED, Step.MISS);
  }

  /** Records a slot as skipped. */
  Future<Void> skip(Instant slot, String reason) {
    return record(
        SlotCommands.skip(job, slot, reason), false, slot, SlotOutcome.SKIPPED, Step.SKIP);
  }

  private Future<Void> record(
      Command command, boolean creating, Instant slot, SlotOutcome outcome, Step step) {
    return Future.fromCompletionStage(
            creating ? commands.sendCreating(command) : commands.send(command),
            vertx.getOrCreateContext())
        .timeout(SlotRunner.COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onSuccess(
            v -> {
              health.progressed(clock.now());
              metrics.slot(job, outcome);
              SlotLog.line(
                      log.atInfo(),
                      job,
                      SlotCommands.slotId(job, slot),
                      slot,
                      instanceId,
                      lease.get().map(Lease::fencingToken).orElse(0L))
                  .addKeyValue("commandId", command.commandId())
                  .addKeyValue("outcome", outcome.tag())
                  .log("slot " + outcome.tag());
            })
        .onFailure(
            e -> {
              health.fault(step, e, clock.now());
              log.warn(
                  "job {}: could not record {} of {}: {}", job, outcome.tag(), slot, e.toString());
            })
        .mapEmpty();
  }
}
