package io.slotkeeper.timers;

import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPlanner;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.slots.LedgerQueries.CursorStart;
import io.slotkeeper.slots.LedgerQueries.Span;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where a job's planning resumes, read from the slot ledger: after the newest slot a timer
 * recorded, or before the oldest slot that should have a record and has none. Manual runs and
 * backfills never move it, and it never lies before the job's first planned point, so a restart
 * catches up only what its timers were responsible for. Cursors are read in batches ({@link
 * #loadAll}): a partition gained with thousands of schedules costs a few statements per batch, not
 * a few per schedule.
 */
final class LedgerCursor {

  // Records read when looking for holes: a day of a 1-second job.
  static final int HOLE_SCAN_LIMIT = 86_400;
  // Records per job in a batch's shared scan (bounding its memory); a job that reaches it is
  // scanned again on its own, up to HOLE_SCAN_LIMIT.
  static final int BATCH_SCAN_LIMIT = 2_000;
  // A schedule's walk runs on the event loop only with this many records at most, and only while
  // the batch's walks there took less than INLINE_WALK_NANOS (a cron step costs 15-40 µs unless
  // remembered): the loop is held for a few milliseconds at most.
  static final int INLINE_WALK_RECORDS = 100;
  static final long INLINE_WALK_NANOS = 5_000_000;
  // The reads plus the walk over a day of records (1-3 s for a 1-second cron job).
  static final Duration LOAD_TIMEOUT = Duration.ofSeconds(15);

  /** Where planning resumes, and the slots after that point that already have a record. */
  record Resume(Instant cursor, NavigableSet<Instant> recordedAhead) {}

  private final JobDefinition job;
  private Instant position;
  private NavigableSet<Instant> recordedAhead = new TreeSet<>();
  private boolean loaded;
  private boolean stale;
  // A changed definition plans from the moment of the change, not from holes of the old one.
  private Instant notBefore = Instant.MIN;
  // Bumped by forget(): a load that began before it must not install its outdated answer.
  private long generation;

  LedgerCursor(JobDefinition job) {
    this.job = job;
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
   * Reads the resume points of {@code cursors} (of distinct jobs) together: one statement for the
   * jobs' last records and first planned points, one for the records after them, and one more only
   * for jobs never planned before. Fails for all of them (each staying unloaded) on any fault or
   * after a timeout.
   */
  static Future<Void> loadAll(
      Vertx vertx, LedgerQueries ledger, SlotClock clock, List<LedgerCursor> cursors) {
    Map<String, LedgerCursor> byName = new LinkedHashMap<>();
    Map<String, Long> started = new HashMap<>();
    for (LedgerCursor c : cursors) {
      byName.put(c.job.name(), c);
      started.put(c.job.name(), c.generation);
      // No planning from the old cursor meanwhile: what it fired would look like holes.
      c.loaded = false;
      c.stale = false;
    }
    Instant now = clock.now();
    return ledger
        .cursorStarts(byName.keySet())
        .compose(
            starts ->
                firstPlanned(ledger, byName, starts, now)
                    .compose(first -> resumes(vertx, ledger, byName, starts, first)))
        .timeout(LOAD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .onFailure(e -> cursors.forEach(c -> c.stale = true))
        .map(
            resumes -> {
              byName.forEach((name, c) -> c.install(started.get(name), resumes.get(name)));
              return null;
            });
  }

  private void install(long started, Resume resume) {
    if (generation != started) {
      return;
    }
    boolean early = resume.cursor().isBefore(notBefore);
    position = early ? notBefore : resume.cursor();
    recordedAhead =
        early
            ? new TreeSet<>(resume.recordedAhead().tailSet(notBefore, false))
            : resume.recordedAhead();
    loaded = true;
  }

  /**
   * Each job's first planned point. A job never planned before starts now (less the planner's
   * grace, the window a new job fires in); one with timer records from before this point was kept
   * starts at its oldest record within the catch-up window of its newest.
   */
  private static Future<Map<String, Instant>> firstPlanned(
      LedgerQueries ledger,
      Map<String, LedgerCursor> byName,
      Map<String, CursorStart> starts,
      Instant now) {
    Map<String, Instant> known = new HashMap<>();
    Map<String, Instant> fresh = new HashMap<>();
    Map<String, Instant> since = new HashMap<>();
    byName.forEach(
        (name, c) -> {
          CursorStart start = starts.get(name);
          if (start.firstPlanned().isPresent()) {
            known.put(name, start.firstPlanned().get());
          } else if (start.last().isEmpty()) {
            fresh.put(name, now.minus(CatchUpPlanner.DEFAULT_GRACE));
          } else {
            since.put(name, start.last().get().minus(c.job.catchUpWindow()));
          }
        });
    if (fresh.isEmpty() && since.isEmpty()) {
      return Future.succeededFuture(known);
    }
    return ledger
        .oldestTimerNominalsSince(since)
        .compose(
            oldest -> {
              Map<String, Instant> points = new HashMap<>(fresh);
              since
                  .keySet()
                  .forEach(
                      name ->
                          points.put(
                              name,
                              oldest.getOrDefault(name, starts.get(name).last().orElseThrow())));
              return ledger.recordFirstPlanned(points);
            })
        .map(
            recorded -> {
              known.putAll(recorded);
              return known;
            });
  }

  private static Future<Map<String, Resume>> resumes(
      Vertx vertx,
      LedgerQueries ledger,
      Map<String, LedgerCursor> byName,
      Map<String, CursorStart> starts,
      Map<String, Instant> first) {
    Map<String, Resume> out = new HashMap<>();
    Map<String, Span> spans = new HashMap<>();
    byName.forEach(
        (name, c) -> {
          Instant from = first.get(name);
          Optional<Instant> last = starts.get(name).last();
          if (last.isEmpty() || !last.get().isAfter(from)) {
            out.put(name, new Resume(from, new TreeSet<>()));
          } else {
            spans.put(
                name, new Span(later(from, last.get().minus(c.job.catchUpWindow())), last.get()));
          }
        });
    if (spans.isEmpty()) {
      return Future.succeededFuture(out);
    }
    return recorded(ledger, spans).compose(recorded -> walk(vertx, byName, spans, recorded, out));
  }

  /**
   * Each span's resume point: a walk takes one cron step per record at most. Short walks run here,
   * on the event loop, for up to {@link #INLINE_WALK_NANOS}: handed to a worker on a busy machine,
   * a batch of 200 schedules' few records each took 130-350 ms to come back (takeover batches). The
   * rest, and every schedule with more than {@link #INLINE_WALK_RECORDS} records, go to a worker:
   * with a day of records of a 1-second cron job a walk took 1.2-3.4 s, stalling every timer on the
   * loop.
   */
  private static Future<Map<String, Resume>> walk(
      Vertx vertx,
      Map<String, LedgerCursor> byName,
      Map<String, Span> spans,
      Map<String, NavigableSet<Instant>> recorded,
      Map<String, Resume> out) {
    Function<String, NavigableSet<Instant>> records =
        name -> recorded.getOrDefault(name, Collections.emptyNavigableSet());
    Consumer<String> walkOne =
        name ->
            out.put(
                name,
                resumePoint(
                    byName.get(name).job.schedule(),
                    records.apply(name),
                    spans.get(name).from(),
                    spans.get(name).to()));
    List<String> later = new ArrayList<>();
    long deadline = System.nanoTime() + INLINE_WALK_NANOS;
    for (String name : spans.keySet()) {
      if (records.apply(name).size() > INLINE_WALK_RECORDS || System.nanoTime() > deadline) {
        later.add(name);
      } else {
        walkOne.accept(name);
      }
    }
    if (later.isEmpty()) {
      return Future.succeededFuture(out);
    }
    return vertx.executeBlocking(
        () -> {
          later.forEach(walkOne);
          return out;
        },
        false);
  }

  /** The records within each span: a shared scan, then a scan of its own for each long one. */
  private static Future<Map<String, NavigableSet<Instant>>> recorded(
      LedgerQueries ledger, Map<String, Span> spans) {
    return ledger
        .recordedAmong(spans, BATCH_SCAN_LIMIT)
        .compose(
            shared -> {
              Map<String, Span> cut = new HashMap<>();
              shared.forEach(
                  (name, records) -> {
                    if (records.size() >= BATCH_SCAN_LIMIT) {
                      cut.put(name, spans.get(name));
                    }
                  });
              if (cut.isEmpty()) {
                return Future.succeededFuture(shared);
              }
              // One at a time: each may read a day of a 1-second job.
              Future<Void> chain = Future.succeededFuture();
              for (Map.Entry<String, Span> e : cut.entrySet()) {
                chain =
                    chain.compose(
                        v ->
                            ledger
                                .recordedAmong(Map.of(e.getKey(), e.getValue()), HOLE_SCAN_LIMIT)
                                .map(
                                    full -> {
                                      shared.put(e.getKey(), full.get(e.getKey()));
                                      return null;
                                    }));
              }
              return chain.map(shared);
            });
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
