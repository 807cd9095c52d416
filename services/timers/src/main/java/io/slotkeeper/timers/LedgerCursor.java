package io.slotkeeper.timers;

import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPlanner;
import io.slotkeeper.slots.LedgerQueries;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Where a job's planning resumes, read from the slot ledger: after the newest slot a timer
 * recorded, or before the oldest slot that should have a record and has none. Manual runs and
 * backfills never move it, and it never lies before the job's first planned point, so a restart
 * catches up only what its timers were responsible for.
 */
final class LedgerCursor {

  // Records read when looking for holes: a day of a 1-second job.
  static final int HOLE_SCAN_LIMIT = 86_400;
  // The reads plus the walk over a day of records (1-3 s for a 1-second cron job).
  static final Duration LOAD_TIMEOUT = Duration.ofSeconds(15);

  /** Where planning resumes, and the slots after that point that already have a record. */
  record Resume(Instant cursor, NavigableSet<Instant> recordedAhead) {}

  private final Vertx vertx;
  private final JobDefinition job;
  private final LedgerQueries ledger;
  private final SlotClock clock;
  private Instant position;
  private NavigableSet<Instant> recordedAhead = new TreeSet<>();
  private boolean loaded;
  private boolean stale;
  // A changed definition plans from the moment of the change, not from holes of the old one.
  private Instant notBefore = Instant.MIN;
  // Bumped by forget(): a load that began before it must not install its outdated answer.
  private long generation;

  LedgerCursor(Vertx vertx, JobDefinition job, LedgerQueries ledger, SlotClock clock) {
    this.vertx = vertx;
    this.job = job;
    this.ledger = ledger;
    this.clock = clock;
  }

  /** Whether planning may use the cursor. */
  boolean loaded() {
    return loaded;
  }

  /** Whether the cursor must be read from the ledger before (or again while) planning. */
  boolean wantsLoad() {
    return !loaded || stale;
  }

  /** The last slot planned; slots after it are planned next. */
  Instant position() {
    return position;
  }

  /** Planning covered every slot up to {@code covered}. */
  void advance(Instant covered) {
    position = covered;
  }

  /**
   * Planning never resumes before {@code point}: a schedule whose definition changed there has no
   * slots of its new definition to catch up before it (they would look like holes in the ledger).
   */
  void notBefore(Instant point) {
    notBefore = point;
  }

  /** The lease changed hands: the ledger, not memory, says where to resume. */
  void forget() {
    loaded = false;
    generation++;
  }

  /** A slot of this timer ended without a record (a failed fire or skip): look for holes. */
  void markStale() {
    stale = true;
  }

  /** Whether {@code slot}, about to be planned, already has a record (then it is not sent). */
  boolean alreadyRecorded(Instant slot) {
    return recordedAhead.remove(slot);
  }

  /**
   * Reads the resume point; fails (the cursor staying unloaded) on any fault or after a timeout.
   */
  Future<Void> load() {
    long started = generation;
    // No planning from the old cursor meanwhile: what it fired would look like holes.
    loaded = false;
    stale = false;
    Instant now = clock.now();
    return ledger
        .lastTimerNominal(job.name())
        .compose(last -> firstPlanned(last, now).compose(first -> resume(first, last)))
        .timeout(LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onFailure(e -> stale = true)
        .map(
            resume -> {
              if (generation == started) {
                boolean early = resume.cursor().isBefore(notBefore);
                position = early ? notBefore : resume.cursor();
                recordedAhead =
                    early
                        ? new TreeSet<>(resume.recordedAhead().tailSet(notBefore, false))
                        : resume.recordedAhead();
                loaded = true;
              }
              return null;
            });
  }

  /**
   * The job's first planned point. A job never planned before starts now (less the planner's grace,
   * the window a new job fires in); one with timer records from before this point was kept starts
   * at its oldest record within the catch-up window of its newest.
   */
  private Future<Instant> firstPlanned(Optional<Instant> last, Instant now) {
    return ledger
        .firstPlanned(job.name())
        .compose(
            known -> {
              if (known.isPresent()) {
                return Future.succeededFuture(known.get());
              }
              Future<Instant> point =
                  last.isEmpty()
                      ? Future.succeededFuture(now.minus(CatchUpPlanner.DEFAULT_GRACE))
                      : ledger
                          .oldestTimerNominalSince(
                              job.name(), last.get().minus(job.catchUpWindow()))
                          .map(oldest -> oldest.orElse(last.get()));
              return point.compose(p -> ledger.recordFirstPlanned(job.name(), p));
            });
  }

  private Future<Resume> resume(Instant first, Optional<Instant> last) {
    if (last.isEmpty() || !last.get().isAfter(first)) {
      return Future.succeededFuture(new Resume(first, new TreeSet<>()));
    }
    Instant from = later(first, last.get().minus(job.catchUpWindow()));
    return ledger
        .recorded(job.name(), from, last.get(), HOLE_SCAN_LIMIT)
        // Off the event loop: with a day of records of a 1-second cron job, the walk took
        // 1.2-3.4 s (cron-utils per step), stalling every timer on that loop.
        .compose(
            recorded ->
                vertx.executeBlocking(
                    () -> resumePoint(job.schedule(), recorded, from, last.get()), false));
  }

  /**
   * The last slot before the oldest hole after {@code from} (every slot in {@code (from, last]}
   * should have a record; {@code recorded} are those that do, from a scan that may have stopped at
   * its limit), with the records after it; or {@code last} when there is no hole.
   */
  static Resume resumePoint(
      Schedule schedule, NavigableSet<Instant> recorded, Instant from, Instant last) {
    if (recorded.isEmpty()) {
      return new Resume(last, new TreeSet<>());
    }
    // A scan cut short by its limit only vouches for the slots it returned.
    Instant bound = recorded.last().isBefore(last) ? recorded.last() : last;
    Instant covered = from;
    Optional<Instant> next = schedule.nextAfter(covered);
    while (next.isPresent() && !next.get().isAfter(bound) && recorded.contains(next.get())) {
      covered = next.get();
      next = schedule.nextAfter(covered);
    }
    if (next.isEmpty() || next.get().isAfter(bound)) {
      return new Resume(last, new TreeSet<>());
    }
    return new Resume(covered, new TreeSet<>(recorded.tailSet(covered, false)));
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
