package io.slotkeeper.slots;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.slotkeeper.commands.CommandService;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.slots.SlotCommand.CompleteSlot;
import io.slotkeeper.events.slots.SlotCommand.FailSlot;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import io.slotkeeper.events.slots.SlotCommand.MissSlot;
import io.slotkeeper.events.slots.SlotCommand.SkipSlot;
import io.slotkeeper.events.slots.SlotEvent.SlotCompleted;
import io.slotkeeper.events.slots.SlotEvent.SlotFailed;
import io.slotkeeper.events.slots.SlotEvent.SlotFireRejected;
import io.slotkeeper.events.slots.SlotEvent.SlotFired;
import io.slotkeeper.events.slots.SlotEvent.SlotMissed;
import io.slotkeeper.events.slots.SlotEvent.SlotSkipped;
import io.slotkeeper.events.slots.SlotStatus;
import java.time.Clock;
import java.time.Instant;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * The ledger entry of one slot (job, nominal instant). It accepts a fire when the slot never ran,
 * when its last attempt failed (retry), when the running attempt holds an older fencing token than
 * the new fire (the old holder died or was paused past its lease: takeover), or when the running
 * holder itself fires a later attempt (it lost track of its run). Any other fire is refused and
 * recorded as such; the refused instance must not do the work.
 */
public class Slot {

  static final String FIRST_FIRE = "io.slotkeeper.events.slots.SlotCommand$FireSlot#creating";
  static final String FIRST_MISS = "io.slotkeeper.events.slots.SlotCommand$MissSlot#creating";

  private String slotId;
  private String job;
  private Instant nominal;
  private SlotStatus status;
  private int attempt;
  private long fencingToken;
  private String instanceId;
  private long version;

  protected Slot() {
    // for Axon
  }

  /**
   * Axon's aggregate identifier: the stream of the slot, namespaced so that another aggregate type
   * with the same business ID never shares it (see {@link StreamIds}).
   */
  @AggregateIdentifier
  private String streamId() {
    return StreamIds.slot(slotId);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  SlotSnapshot handle(FireSlot cmd, Clock clock) {
    if (status == null || status == SlotStatus.FAILED) {
      int next = status == null ? Math.max(1, cmd.attempt()) : attempt + 1;
      fire(cmd, next, clock.instant());
      return snapshot(true);
    }
    if (status == SlotStatus.FIRED && cmd.fencingToken() > fencingToken) {
      fire(cmd, attempt + 1, clock.instant());
      return snapshot(true);
    }
    if (status == SlotStatus.FIRED && resumedByItsHolder(cmd)) {
      fire(cmd, attempt + 1, clock.instant());
      return snapshot(true);
    }
    String reason =
        status == SlotStatus.FIRED
            ? "running on " + instanceId + " under fencing token " + fencingToken
            : "already " + status;
    apply(new SlotFireRejected(slotIdOf(cmd), cmd.instanceId(), cmd.fencingToken(), reason));
    return snapshot(false);
  }

  /**
   * The running holder (same instance, same fencing token) fires a later attempt: it lost track of
   * its run (the fire's answer or the completion was lost to a fault) and no run of the slot is
   * going on there any more. Only the holder itself can send this; anyone else needs a newer token.
   */
  private boolean resumedByItsHolder(FireSlot cmd) {
    return cmd.fencingToken() == fencingToken
        && cmd.instanceId().equals(instanceId)
        && cmd.attempt() > attempt;
  }

  /**
   * A slot's first fire, sent by {@link CommandService#sendCreating}: creates the slot without
   * reading its stream. If the slot exists after all, the append fails on the event sequence and
   * the fire is retried through {@link #handle(FireSlot, Clock)}, which decides on the slot's
   * state.
   */
  @CommandHandler(commandName = FIRST_FIRE)
  @CreationPolicy(AggregateCreationPolicy.ALWAYS)
  SlotSnapshot create(FireSlot cmd, Clock clock) {
    fire(cmd, Math.max(1, cmd.attempt()), clock.instant());
    return snapshot(true);
  }

  /** A missed slot's record, sent by {@link CommandService#sendCreating} (see above). */
  @CommandHandler(commandName = FIRST_MISS)
  @CreationPolicy(AggregateCreationPolicy.ALWAYS)
  SlotSnapshot create(MissSlot cmd) {
    return handle(cmd);
  }

  private void fire(FireSlot cmd, int attemptNumber, Instant firedAt) {
    apply(
        new SlotFired(
            cmd.slotId(),
            cmd.job(),
            cmd.nominal(),
            cmd.instanceId(),
            cmd.fencingToken(),
            attemptNumber,
            cmd.backfill(),
            firedAt));
  }

  private String slotIdOf(FireSlot cmd) {
    return slotId != null ? slotId : cmd.slotId();
  }

  @CommandHandler
  SlotSnapshot handle(CompleteSlot cmd) {
    requireRunningUnder(cmd.fencingToken(), "complete");
    apply(new SlotCompleted(slotId, cmd.instanceId(), cmd.counts(), cmd.durationMillis()));
    return snapshot(true);
  }

  @CommandHandler
  SlotSnapshot handle(FailSlot cmd) {
    requireRunningUnder(cmd.fencingToken(), "fail");
    apply(new SlotFailed(slotId, cmd.instanceId(), attempt, cmd.error()));
    return snapshot(true);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  SlotSnapshot handle(SkipSlot cmd) {
    if (status == null) {
      apply(new SlotSkipped(cmd.slotId(), cmd.job(), cmd.nominal(), cmd.reason()));
      return snapshot(true);
    }
    return snapshot(false);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  SlotSnapshot handle(MissSlot cmd) {
    if (status == null) {
      apply(new SlotMissed(cmd.slotId(), cmd.job(), cmd.nominal(), cmd.reason()));
      return snapshot(true);
    }
    return snapshot(false);
  }

  private void requireRunningUnder(long token, String verb) {
    if (status != SlotStatus.FIRED || token != fencingToken) {
      throw new IllegalTransitionException(
          slotId,
          String.valueOf(status),
          "cannot "
              + verb
              + " slot "
              + slotId
              + " under fencing token "
              + token
              + ": it is "
              + status
              + " under token "
              + fencingToken);
    }
  }

  private SlotSnapshot snapshot(boolean accepted) {
    return new SlotSnapshot(
        slotId, job, nominal, status, attempt, fencingToken, instanceId, accepted, version);
  }

  @EventSourcingHandler
  void on(SlotFired e, @SequenceNumber long seq) {
    slotId = e.slotId();
    job = e.job();
    nominal = e.nominal();
    status = SlotStatus.FIRED;
    attempt = e.attempt();
    fencingToken = e.fencingToken();
    instanceId = e.instanceId();
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(SlotCompleted e, @SequenceNumber long seq) {
    status = SlotStatus.COMPLETED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(SlotFailed e, @SequenceNumber long seq) {
    status = SlotStatus.FAILED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(SlotSkipped e, @SequenceNumber long seq) {
    slotId = e.slotId();
    job = e.job();
    nominal = e.nominal();
    status = SlotStatus.SKIPPED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(SlotMissed e, @SequenceNumber long seq) {
    slotId = e.slotId();
    job = e.job();
    nominal = e.nominal();
    status = SlotStatus.MISSED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(SlotFireRejected e, @SequenceNumber long seq) {
    slotId = e.slotId();
    version = seq + 1;
  }
}
