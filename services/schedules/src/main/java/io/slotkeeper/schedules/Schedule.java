package io.slotkeeper.schedules;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

import io.slotkeeper.commands.AggregateAlreadyExistsException;
import io.slotkeeper.commands.AggregateNotFoundException;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.commands.StaleVersionException;
import io.slotkeeper.events.StreamIds;
import io.slotkeeper.events.schedules.ManagedBy;
import io.slotkeeper.events.schedules.ScheduleCommand;
import io.slotkeeper.events.schedules.ScheduleCommand.ChangeSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.CreateSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.DeclareSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.DeleteSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.PauseSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.ReleaseSchedule;
import io.slotkeeper.events.schedules.ScheduleCommand.ResumeSchedule;
import io.slotkeeper.events.schedules.ScheduleDefinition;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleChanged;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleCreated;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleDeleted;
import io.slotkeeper.events.schedules.ScheduleEvent.SchedulePaused;
import io.slotkeeper.events.schedules.ScheduleEvent.ScheduleResumed;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.modelling.command.AggregateCreationPolicy;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.CreationPolicy;

/**
 * A schedule: its definition, who owns it (the API or a jobs file) and whether it fires. Its
 * version is the number of its events; a command carrying an expected version that is not the
 * current one is refused ({@link StaleVersionException}). The API may not change or delete a
 * schedule a jobs file declares. A deleted schedule answers every command as unknown, and its name
 * cannot be created again: slot IDs derive from the name, so a new schedule under it would meet the
 * old one's slots.
 */
public class Schedule {

  private String name;
  private ScheduleDefinition definition;
  private ManagedBy managedBy;
  private String source;
  private ScheduleState state;
  private Instant effectiveAt;
  private long version;

  protected Schedule() {
    // for Axon
  }

  @AggregateIdentifier
  private String streamId() {
    return StreamIds.schedule(name);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  ScheduleSnapshot handle(CreateSchedule cmd, Clock clock) {
    requireDefinition(cmd.name(), cmd.definition());
    if (state == ScheduleState.DELETED) {
      throw new IllegalTransitionException(
          cmd.name(),
          state.name(),
          "schedule " + cmd.name() + " was deleted; its name cannot be used again");
    }
    if (state != null) {
      throw new AggregateAlreadyExistsException("schedule " + cmd.name());
    }
    apply(
        new ScheduleCreated(
            cmd.name(),
            cmd.definition(),
            cmd.managedBy(),
            cmd.source(),
            clock.instant(),
            cmd.principal(),
            cmd.reason()));
    return snapshot(false);
  }

  @CommandHandler
  @CreationPolicy(AggregateCreationPolicy.CREATE_IF_MISSING)
  ScheduleSnapshot handle(DeclareSchedule cmd, Clock clock) {
    requireDefinition(cmd.name(), cmd.definition());
    if (state == ScheduleState.DELETED) {
      return snapshot(true);
    }
    if (state == null) {
      apply(
          new ScheduleCreated(
              cmd.name(),
              cmd.definition(),
              ManagedBy.FILE,
              cmd.source(),
              clock.instant(),
              cmd.principal(),
              cmd.reason()));
      if (cmd.paused()) {
        apply(new SchedulePaused(cmd.name(), cmd.principal(), "paused before it was declared"));
      }
      return snapshot(false);
    }
    return changeTo(cmd.definition(), ManagedBy.FILE, cmd.source(), cmd, clock);
  }

  @CommandHandler
  ScheduleSnapshot handle(ChangeSchedule cmd, Clock clock) {
    requireLive(cmd.expectedVersion());
    requireDefinition(cmd.name(), cmd.definition());
    requireApiMay(cmd.managedBy(), "change");
    return changeTo(cmd.definition(), cmd.managedBy(), cmd.source(), cmd, clock);
  }

  @CommandHandler
  ScheduleSnapshot handle(ReleaseSchedule cmd) {
    requireLive(null);
    if (managedBy != ManagedBy.FILE || !Objects.equals(source, cmd.source())) {
      return snapshot(true);
    }
    // Same definition, same effective instant: only the owner changes, no slot is affected.
    apply(
        new ScheduleChanged(
            name, definition, ManagedBy.API, null, effectiveAt, cmd.principal(), cmd.reason()));
    return snapshot(false);
  }

  @CommandHandler
  ScheduleSnapshot handle(PauseSchedule cmd) {
    requireLive(cmd.expectedVersion());
    if (state == ScheduleState.PAUSED) {
      return snapshot(true);
    }
    apply(new SchedulePaused(name, cmd.principal(), cmd.reason()));
    return snapshot(false);
  }

  @CommandHandler
  ScheduleSnapshot handle(ResumeSchedule cmd) {
    requireLive(cmd.expectedVersion());
    if (state == ScheduleState.ACTIVE) {
      return snapshot(true);
    }
    apply(new ScheduleResumed(name, cmd.principal(), cmd.reason()));
    return snapshot(false);
  }

  @CommandHandler
  ScheduleSnapshot handle(DeleteSchedule cmd) {
    requireLive(cmd.expectedVersion());
    requireApiMay(cmd.managedBy(), "delete");
    apply(new ScheduleDeleted(name, cmd.principal(), cmd.reason()));
    return snapshot(false);
  }

  private ScheduleSnapshot changeTo(
      ScheduleDefinition next,
      ManagedBy owner,
      String nextSource,
      ScheduleCommand cmd,
      Clock clock) {
    if (next.equals(definition) && owner == managedBy && Objects.equals(nextSource, source)) {
      return snapshot(true);
    }
    apply(
        new ScheduleChanged(
            name, next, owner, nextSource, clock.instant(), cmd.principal(), cmd.reason()));
    return snapshot(false);
  }

  /** Unknown and deleted schedules are both "not found"; a stale expected version is refused. */
  private void requireLive(Long expectedVersion) {
    if (state == null || state == ScheduleState.DELETED) {
      throw new AggregateNotFoundException("schedule", name);
    }
    if (expectedVersion != null && expectedVersion != version) {
      throw new StaleVersionException("schedule " + name, expectedVersion, version);
    }
  }

  private void requireApiMay(ManagedBy caller, String what) {
    if (caller == ManagedBy.API && managedBy == ManagedBy.FILE) {
      throw new IllegalTransitionException(
          name,
          "managed by " + source,
          "cannot "
              + what
              + " schedule "
              + name
              + ": it is managed by the jobs file "
              + source
              + "; change it there (or remove it from the file)");
    }
  }

  private static void requireDefinition(String name, ScheduleDefinition definition) {
    if (definition == null || !Objects.equals(name, definition.name())) {
      throw new InvalidCommandException("a schedule's definition must carry its name " + name);
    }
  }

  private ScheduleSnapshot snapshot(boolean noop) {
    return new ScheduleSnapshot(name, definition, managedBy, source, state, version, noop);
  }

  @EventSourcingHandler
  void on(ScheduleCreated e, @SequenceNumber long seq) {
    name = e.name();
    definition = e.definition();
    managedBy = e.managedBy();
    source = e.source();
    effectiveAt = e.effectiveAt();
    state = ScheduleState.ACTIVE;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(ScheduleChanged e, @SequenceNumber long seq) {
    definition = e.definition();
    managedBy = e.managedBy();
    source = e.source();
    effectiveAt = e.effectiveAt();
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(SchedulePaused e, @SequenceNumber long seq) {
    state = ScheduleState.PAUSED;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(ScheduleResumed e, @SequenceNumber long seq) {
    state = ScheduleState.ACTIVE;
    version = seq + 1;
  }

  @EventSourcingHandler
  void on(ScheduleDeleted e, @SequenceNumber long seq) {
    state = ScheduleState.DELETED;
    version = seq + 1;
  }
}
