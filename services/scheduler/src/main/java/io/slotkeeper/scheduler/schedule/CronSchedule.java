package io.slotkeeper.scheduler.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A wall-clock schedule: a six-field cron expression with seconds, in the Spring 5.3 dialect
 * ({@code second minute hour day-of-month month day-of-week}; {@code ?} is accepted in the day
 * fields, so Quartz-style expressions such as {@code 0 5 0 * * ?} work too; day-of-week 0 or 7 is
 * Sunday), evaluated in an IANA time zone.
 *
 * <p>cron-utils treats daylight saving inconsistently (a daily job in a gap is skipped, a daily job
 * in an overlap fires once, a sub-hourly one fires in both passes). So the expression is matched
 * against <em>local date-times only</em> (cron-utils runs in UTC, where no clock ever moves), and
 * each matching local time is turned into instants by the zone's rules and the job's {@link
 * DstPolicy}. Local times are thus the one input of cron matching, the policy the one input of what
 * a gap or an overlap does.
 */
public final class CronSchedule implements Schedule {

  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));

  /**
   * Every valid definition (expression, zone, DST policy), parsed once, with the last answers of
   * nextAfter, shared by every schedule of that definition. Parsing and validating cost a third of
   * a millisecond, and schedules share few definitions (10,000 at start-up, and an edit is read by
   * the API, the projection and the catalog). A cron-utils step builds its day candidates afresh (a
   * sixth of the CPU at 10,000 one-minute schedules); a schedule's timer, health and expected-slot
   * counter ask about the same interval again and again, and schedules of one definition (a job per
   * tenant) about the same intervals, down to the cursor walks of a partition taken over.
   */
  private static final Map<Definition, Compiled> COMPILED = new ConcurrentHashMap<>();

  private static final int COMPILED_KEPT = 10_000;

  // The current slot's interval and a few back: a walk over the last minutes of a one-minute cron.
  private static final int ANSWERS_KEPT = 16;

  private record Definition(String expression, ZoneId zone, DstPolicy dst) {}

  private static final class Compiled {
    // cron-utils' ExecutionTime holds no state of a call.
    private final ExecutionTime execution;
    // Each true for every instant in [from, next); newest first. Copy on write: two threads racing
    // lose an answer, never keep a wrong one.
    private volatile Interval[] answers = new Interval[0];

    private Compiled(ExecutionTime execution) {
      this.execution = execution;
    }
  }

  private record Interval(Instant from, Instant next) {
    boolean covers(Instant t) {
      return !t.isBefore(from) && t.isBefore(next);
    }
  }

  private final String expression;
  private final ZoneId zone;
  private final DstPolicy dst;
  private final Compiled compiled;

  /**
   * Parses and validates {@code expression}.
   *
   * @throws IllegalArgumentException if the expression is not a valid six-field cron expression
   */
  public CronSchedule(String expression, ZoneId zone, DstPolicy dst) {
    this.expression = Objects.requireNonNull(expression, "expression").trim();
    this.zone = Objects.requireNonNull(zone, "zone");
    this.dst = Objects.requireNonNull(dst, "dst");
    if (COMPILED.size() >= COMPILED_KEPT) {
      COMPILED.clear(); // bounded: many distinct definitions just parse again
    }
    this.compiled =
        COMPILED.computeIfAbsent(
            new Definition(this.expression, zone, dst), d -> new Compiled(parse(d.expression())));
  }

  private static ExecutionTime parse(String expression) {
    try {
      return ExecutionTime.forCron(PARSER.parse(expression).validate());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "invalid cron expression '" + expression + "': " + e.getMessage(), e);
    }
  }

  /** The expression as given (trimmed). */
  public String expression() {
    return expression;
  }

  /** The zone whose wall clock the expression reads. */
  public ZoneId zone() {
    return zone;
  }

  /** What daylight saving transitions do to this schedule. */
  public DstPolicy dst() {
    return dst;
  }

  @Override
  public Optional<Instant> nextAfter(Instant t) {
    Interval[] known = compiled.answers;
    Optional<Instant> remembered = answerIn(known, t);
    if (remembered.isPresent()) {
      return remembered;
    }
    Optional<Instant> next = computedNextAfter(t);
    if (next.isPresent()) {
      Interval[] kept = new Interval[Math.min(ANSWERS_KEPT, known.length + 1)];
      kept[0] = new Interval(t, next.get());
      System.arraycopy(known, 0, kept, 1, kept.length - 1);
      compiled.answers = kept;
    }
    return next;
  }

  /** Whether an answer for {@code t} is remembered (by any schedule of this definition). */
  boolean remembers(Instant t) {
    return answerIn(compiled.answers, t).isPresent();
  }

  private static Optional<Instant> answerIn(Interval[] known, Instant t) {
    for (Interval i : known) {
      if (i.covers(t)) {
        return Optional.of(i.next());
      }
    }
    return Optional.empty();
  }

  /** The next slot after {@code t}, computed without the remembered answers. */
  Optional<Instant> computedNextAfter(Instant t) {
    return scan(t, true);
  }

  @Override
  public Optional<Instant> latestAtOrBefore(Instant t) {
    return scan(t, false);
  }

  /**
   * Scans matching local times upwards ({@code forward}) or downwards. The local times whose
   * instants can lie after {@code t} start at {@code t} read with the smallest offset around it
   * (downwards: the largest). The scan stops once even the nearest instant of a local time is no
   * closer than the best candidate, which is final because the earliest (latest) instant of a local
   * time never decreases as the local time grows.
   */
  private Optional<Instant> scan(Instant t, boolean forward) {
    ZoneRules rules = zone.getRules();
    LocalDateTime local = LocalDateTime.ofInstant(t, offsetBound(rules, t, forward));
    local = forward ? local.minusSeconds(1) : local.plusSeconds(1);
    Instant best = null;
    while (true) {
      Optional<LocalDateTime> match =
          (forward
                  ? compiled.execution.nextExecution(utc(local))
                  : compiled.execution.lastExecution(utc(local)))
              .map(ZonedDateTime::toLocalDateTime);
      if (match.isEmpty()) {
        return Optional.ofNullable(best);
      }
      local = match.get();
      if (best != null && !closer(extremeInstant(rules, local, forward), best, forward)) {
        return Optional.of(best);
      }
      for (Instant candidate : instants(rules, local)) {
        boolean eligible = forward ? candidate.isAfter(t) : !candidate.isAfter(t);
        if (eligible && (best == null || closer(candidate, best, forward))) {
          best = candidate;
        }
      }
    }
  }

  private static boolean closer(Instant a, Instant b, boolean forward) {
    return forward ? a.isBefore(b) : a.isAfter(b);
  }

  /** cron-utils sees local times as UTC, where no clock ever moves. */
  private static ZonedDateTime utc(LocalDateTime local) {
    return local.atZone(ZoneOffset.UTC);
  }

  /**
   * The instants at which the local time {@code local} fires under the DST policy, ascending: none
   * or one in a gap, one or two in an overlap, one otherwise.
   */
  List<Instant> instants(ZoneRules rules, LocalDateTime local) {
    List<ZoneOffset> offsets = rules.getValidOffsets(local);
    if (offsets.size() == 1) {
      return List.of(local.toInstant(offsets.get(0)));
    }
    ZoneOffsetTransition transition = rules.getTransition(local);
    if (offsets.isEmpty()) {
      return dst.gap() == DstPolicy.Gap.SKIP ? List.of() : List.of(transition.getInstant());
    }
    Instant first = local.toInstant(transition.getOffsetBefore());
    Instant last = local.toInstant(transition.getOffsetAfter());
    switch (dst.overlap()) {
      case FIRST_OCCURRENCE:
        return List.of(first);
      case LAST_OCCURRENCE:
        return List.of(last);
      default:
        return List.of(first, last);
    }
  }

  /**
   * The earliest ({@code earliest}) or latest instant any policy could give {@code local}; both are
   * non-decreasing in local time.
   */
  private static Instant extremeInstant(ZoneRules rules, LocalDateTime local, boolean earliest) {
    List<ZoneOffset> offsets = rules.getValidOffsets(local);
    if (offsets.isEmpty()) {
      return rules.getTransition(local).getInstant();
    }
    // Overlaps list the earlier offset (the larger one) first.
    return local.toInstant(offsets.get(earliest ? 0 : offsets.size() - 1));
  }

  /**
   * The smallest ({@code smallest}) or largest offset the zone uses around {@code t}: at {@code t}
   * and on both sides of the transitions just before and after it. Reading {@code t} with it gives
   * the first local time whose instants can lie after (or the last whose can lie at or before)
   * {@code t}.
   */
  private static ZoneOffset offsetBound(ZoneRules rules, Instant t, boolean smallest) {
    ZoneOffset bound = rules.getOffset(t);
    for (ZoneOffsetTransition tr :
        new ZoneOffsetTransition[] {rules.previousTransition(t), rules.nextTransition(t)}) {
      if (tr == null) {
        continue;
      }
      for (ZoneOffset o : new ZoneOffset[] {tr.getOffsetBefore(), tr.getOffsetAfter()}) {
        boolean better =
            smallest
                ? o.getTotalSeconds() < bound.getTotalSeconds()
                : o.getTotalSeconds() > bound.getTotalSeconds();
        if (better) {
          bound = o;
        }
      }
    }
    return bound;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CronSchedule
        && ((CronSchedule) o).expression.equals(expression)
        && ((CronSchedule) o).zone.equals(zone)
        && ((CronSchedule) o).dst.equals(dst);
  }

  @Override
  public int hashCode() {
    return Objects.hash(expression, zone, dst);
  }

  @Override
  public String toString() {
    return "cron '" + expression + "' in " + zone + " (" + dst + ")";
  }
}
