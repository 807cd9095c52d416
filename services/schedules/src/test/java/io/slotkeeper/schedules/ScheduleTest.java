package io.slotkeeper.schedules;

import io.slotkeeper.commands.AggregateAlreadyExistsException;
import io.slotkeeper.commands.IllegalTransitionException;
import io.slotkeeper.commands.StaleVersionException;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.schedules.ManagedBy;
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
import java.time.ZoneOffset;
import java.util.Map;
import org.axonframework.modelling.command.VersionedAggregateIdentifier;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.aggregate.FixtureConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One test per schedule rule. */
class ScheduleTest {

  static final Instant NOW = Instant.parse("2026-12-04T09:00:00Z");
  static final String FILE = "jobs.yaml";

  private FixtureConfiguration<Schedule> fixture;

  @BeforeEach
  void setUp() {
    fixture = new AggregateTestFixture<>(Schedule.class);
    fixture.registerInjectableResource(Clock.fixed(NOW, ZoneOffset.UTC));
    fixture.registerCommandTargetResolver(
        cmd -> new VersionedAggregateIdentifier(((Command) cmd.getPayload()).streamId(), null));
  }

  static ScheduleDefinition every(String interval) {
    return new ScheduleDefinition(
        "s",
        new ScheduleDefinition.Timing(interval, "1970-01-01T00:00:00Z", null),
        "UTC",
        true,
        new ScheduleDefinition.CatchUp("LATEST", "PT10M"),
        "SKIP",
        new ScheduleDefinition.Dst("SHIFT_FORWARD", "FIRST"),
        new ScheduleDefinition.Retry(3, "PT1S", 2.0, "PT1M"),
        "PT10S",
        "noop",
        Map.of());
  }

  static ScheduleCreated created() {
    return new ScheduleCreated("s", every("PT1M"), ManagedBy.API, null, NOW, "operator", null);
  }

  static ScheduleCreated createdFromFile() {
    return new ScheduleCreated("s", every("PT1M"), ManagedBy.FILE, FILE, NOW, "file:" + FILE, null);
  }

  @Test
  void aNewNameIsCreated() {
    fixture
        .givenNoPriorActivity()
        .when(new CreateSchedule("c1", "s", every("PT1M"), ManagedBy.API, null, "operator", null))
        .expectEvents(created());
  }

  @Test
  void anExistingNameIsAConflict() {
    fixture
        .given(created())
        .when(new CreateSchedule("c2", "s", every("PT1M"), ManagedBy.API, null, "operator", null))
        .expectNoEvents()
        .expectException(AggregateAlreadyExistsException.class);
  }

  @Test
  void aDeletedNameCannotBeCreatedAgain() {
    fixture
        .given(created(), new ScheduleDeleted("s", "operator", null))
        .when(new CreateSchedule("c2", "s", every("PT1M"), ManagedBy.API, null, "operator", null))
        .expectNoEvents()
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage("schedule s was deleted; its name cannot be used again");
  }

  @Test
  void aChangeRecordsWhoWhyAndWhen() {
    fixture
        .given(created())
        .when(
            new ChangeSchedule(
                "c2", "s", every("PT5M"), ManagedBy.API, null, 1L, "operator", "slower"))
        .expectEvents(
            new ScheduleChanged(
                "s", every("PT5M"), ManagedBy.API, null, NOW, "operator", "slower"));
  }

  @Test
  void theSameDefinitionChangesNothing() {
    fixture
        .given(created())
        .when(
            new ChangeSchedule("c2", "s", every("PT1M"), ManagedBy.API, null, 1L, "operator", null))
        .expectNoEvents()
        .expectSuccessfulHandlerExecution();
  }

  @Test
  void aStaleVersionIsRefused() {
    fixture
        .given(created(), new SchedulePaused("s", "operator", null))
        .when(
            new ChangeSchedule("c2", "s", every("PT5M"), ManagedBy.API, null, 1L, "operator", null))
        .expectNoEvents()
        .expectException(StaleVersionException.class);
  }

  @Test
  void theApiMayNotChangeAFileManagedSchedule() {
    fixture
        .given(createdFromFile())
        .when(
            new ChangeSchedule(
                "c2", "s", every("PT5M"), ManagedBy.API, null, null, "operator", null))
        .expectNoEvents()
        .expectException(IllegalTransitionException.class)
        .expectExceptionMessage(
            "cannot change schedule s: it is managed by the jobs file jobs.yaml;"
                + " change it there (or remove it from the file)");
  }

  @Test
  void theApiMayNotDeleteAFileManagedSchedule() {
    fixture
        .given(createdFromFile())
        .when(new DeleteSchedule("c2", "s", null, ManagedBy.API, "operator", null))
        .expectNoEvents()
        .expectException(IllegalTransitionException.class);
  }

  @Test
  void aDeletedScheduleIsNotFound() {
    fixture
        .given(created(), new ScheduleDeleted("s", "operator", null))
        .when(new PauseSchedule("c2", "s", null, "operator", null))
        .expectNoEvents()
        .expectException(io.slotkeeper.commands.AggregateNotFoundException.class);
  }

  @Test
  void pauseAndResumeAreStatesPausingTwiceIsANoop() {
    fixture
        .given(created())
        .when(new PauseSchedule("c2", "s", 1L, "operator", "maintenance"))
        .expectEvents(new SchedulePaused("s", "operator", "maintenance"));
    fixture
        .given(created(), new SchedulePaused("s", "operator", null))
        .when(new PauseSchedule("c3", "s", null, "operator", null))
        .expectNoEvents();
    fixture
        .given(created(), new SchedulePaused("s", "operator", null))
        .when(new ResumeSchedule("c3", "s", 2L, "operator", null))
        .expectEvents(new ScheduleResumed("s", "operator", null));
  }

  @Test
  void aDeclarationCreatesKeepingAnEarlierPause() {
    fixture
        .givenNoPriorActivity()
        .when(new DeclareSchedule("d1", "s", every("PT1M"), FILE, true, "file:" + FILE, null))
        .expectEvents(
            createdFromFile(),
            new SchedulePaused("s", "file:" + FILE, "paused before it was declared"));
  }

  @Test
  void anEqualDeclarationChangesNothingADifferentOneChanges() {
    fixture
        .given(createdFromFile())
        .when(new DeclareSchedule("d2", "s", every("PT1M"), FILE, false, "file:" + FILE, null))
        .expectNoEvents();
    fixture
        .given(created())
        .when(new DeclareSchedule("d2", "s", every("PT1M"), FILE, false, "file:" + FILE, null))
        .expectEvents(
            new ScheduleChanged(
                "s", every("PT1M"), ManagedBy.FILE, FILE, NOW, "file:" + FILE, null));
  }

  @Test
  void aReleasedScheduleKeepsItsDefinitionAndEffectiveInstant() {
    Instant earlier = NOW.minusSeconds(3600);
    fixture
        .given(new ScheduleCreated("s", every("PT1M"), ManagedBy.FILE, FILE, earlier, "f", null))
        .when(new ReleaseSchedule("r1", "s", FILE, "file:" + FILE, "gone"))
        .expectEvents(
            new ScheduleChanged(
                "s", every("PT1M"), ManagedBy.API, null, earlier, "file:" + FILE, "gone"));
  }
}
