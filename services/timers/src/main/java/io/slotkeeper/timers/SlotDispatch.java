package io.slotkeeper.timers;

import io.slotkeeper.leases.Lease;
import io.slotkeeper.scheduler.schedule.SlotClock;
import io.slotkeeper.scheduler.schedule.job.JobDefinition;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy.Decision;
import io.slotkeeper.slots.LedgerQueries;
import io.slotkeeper.timers.SlotRunner.Trigger;
import io.slotkeeper.timers.TimerHealth.Step;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one job's due slots into runs: the overlap policy, the queue that runs the slots of one
 * round (a catch-up) one after another, retries with backoff, and takeovers. Every run ends, one
 * way or the other: a fire or a record that fails or times out leaves its slot without a record,
 * and {@code onHole} asks the cursor to look for it in the ledger again.
 */
final class SlotDispatch {

  private static final Logger log = LoggerFactory.getLogger(SlotDispatch.class);
  static final String PAUSED = "job paused by an operator";

  private final Vertx vertx;
  private final JobDefinition job;
  private final SlotRunner runner;
  private final SlotRecorder recorder;
  private final TimerHealth health;
  private final SlotClock clock;
  private final Supplier<Optional<Lease>> lease;
  private final Runnable onHole;
  // Head: the round whose slots run now, one after another; behind it, rounds buffered.
  private final Deque<Deque<Instant>> rounds = new ArrayDeque<>();
  private boolean queueRunning;
  private Decision lastDecision = Decision.RUN;
  private int running;
  private int firesInFlight;
  // The slots this dispatch runs now (fire or handler): never fired twice here, never taken over.
  private final Set<Instant> active = new HashSet<>();
  private boolean paused;

  SlotDispatch(
      Vertx vertx,
      JobDefinition job,
      SlotRunner runner,
      SlotRecorder recorder,
      TimerHealth health,
      SlotClock clock,
      Supplier<Optional<Lease>> lease,
      Runnable onHole) {
    this.vertx = vertx;
    this.job = job;
    this.runner = runner;
    this.recorder = recorder;
    this.health = health;
    this.clock = clock;
    this.lease = lease;
    this.onHole = onHole;
  }

  void paused(boolean paused) {
    this.paused = paused;
  }

  boolean paused() {
    return paused;
  }

  /**
   * No fire awaits the ledger's answer and no slot waits in the queue: the ledger is settled (a
   * handler still running does not matter: its slot has its record).
   */
  boolean idle() {
    return firesInFlight == 0 && rounds.stream().allMatch(Deque::isEmpty);
  }

  /** The lease is gone: queued slots are not fired here (they stay holes for the next holder). */
  void leaseLost() {
    rounds.clear();
  }

  /**
   * The slots one plan found due, oldest first. The overlap policy decides for the round against
   * runs of earlier rounds; the slots of one round never overlap each other: under SKIP and
   * BUFFER_ONE they run one after another, under ALLOW side by side (what ALLOW asks for). A {@code
   * continuation} (the next part of a plan cut at its limit) follows its round's decision.
   */
  void dispatch(List<Instant> slots, boolean continuation) {
    if (slots.isEmpty()) {
      return;
    }
    if (paused) {
      slots.forEach(s -> skip(s, PAUSED));
      return;
    }
    if (job.overlapPolicy() == OverlapPolicy.ALLOW) {
      slots.forEach(s -> run(s, 1));
      return;
    }
    Decision decision =
        continuation
            ? lastDecision
            : job.overlapPolicy()
                .decide(running > 0 || !rounds.isEmpty() ? 1 : 0, Math.max(0, rounds.size() - 1));
    lastDecision = decision;
    if (decision == Decision.SKIP) {
      slots.forEach(s -> skip(s, "the previous run of " + job.name() + " was still running"));
      return;
    }
    if (continuation && !rounds.isEmpty()) {
      rounds.peekLast().addAll(slots);
    } else {
      rounds.addLast(new ArrayDeque<>(slots));
    }
    runQueued();
  }

  private void skip(Instant slot, String reason) {
    // Without its record the slot is a hole: the cursor finds it again.
    recorder.skip(slot, reason).onFailure(e -> onHole.run());
  }

  private void runQueued() {
    while (!queueRunning && !rounds.isEmpty()) {
      Deque<Instant> head = rounds.peekFirst();
      Instant next = head.poll();
      if (next == null) {
        rounds.pollFirst();
        continue;
      }
      queueRunning = true;
      run(next, 1)
          .onComplete(
              done -> {
                queueRunning = false;
                runQueued();
              });
    }
  }

  /**
   * Slots whose runner died, whose retry was lost, or that this holder lost track of: fired again,
   * beside the queue, unless a run of the slot is still going on here.
   */
  void takeOver(List<LedgerQueries.Stalled> stalled) {
    for (LedgerQueries.Stalled s : stalled) {
      if (active.contains(s.nominal())) {
        continue;
      }
      log.info(
          "job {}: taking over stalled slot {} (attempt {})",
          job.name(),
          s.nominal(),
          s.attempts() + 1);
      run(s.nominal(), s.attempts() + 1);
    }
  }

  /** One attempt: the fire, then (if the ledger gives it to us) the handler. Never fails. */
  private Future<Void> run(Instant slot, int attempt) {
    Optional<Lease> held = lease.get();
    if (held.isEmpty()) {
      onHole.run();
      return Future.succeededFuture();
    }
    if (!active.add(slot)) {
      return Future.succeededFuture();
    }
    running++;
    firesInFlight++;
    return runner
        .claim(job, slot, held.get().fencingToken(), attempt, Trigger.TIMER)
        .transform(
            claimed -> {
              firesInFlight--;
              if (claimed.failed()) {
                health.fault(Step.FIRE, claimed.cause(), clock.now());
                log.warn(
                    "job {}: fire of {} failed, planned again later: {}",
                    job.name(),
                    slot,
                    claimed.cause().toString());
                onHole.run();
                return Future.<Void>succeededFuture();
              }
              health.progressed(clock.now());
              return claimed.result().mine()
                  ? execute(claimed.result(), slot)
                  : Future.<Void>succeededFuture();
            })
        .onComplete(
            done -> {
              running--;
              active.remove(slot);
            });
  }

  private Future<Void> execute(SlotRunner.Claim claim, Instant slot) {
    return runner
        .execute(job, claim.slot())
        .transform(
            done -> {
              if (done.failed()) {
                // The handler ran; its completion or failure was not recorded. The slot stays
                // FIRED, and a takeover (this holder's own after a lease TTL, or the next
                // holder's) finishes it.
                health.fault(Step.COMPLETE, done.cause(), clock.now());
              } else if (done.result().outcome() == RunResult.Outcome.FAILED
                  && done.result().retryable()) {
                scheduleRetry(slot, done.result().slot().attempt(), done.result().retryAfter());
              }
              return Future.succeededFuture();
            });
  }

  /** The policy's delay, or longer when the handler asked for more (an HTTP Retry-After). */
  private void scheduleRetry(Instant slot, int failedAttempt, Duration atLeast) {
    job.retryPolicy()
        .delayBefore(failedAttempt + 1)
        .map(delay -> atLeast != null && atLeast.compareTo(delay) > 0 ? atLeast : delay)
        .ifPresentOrElse(
            delay ->
                vertx.setTimer(Math.max(1, delay.toMillis()), id -> run(slot, failedAttempt + 1)),
            () ->
                log.warn(
                    "job {}: slot {} failed {} times; no retries left",
                    job.name(),
                    slot,
                    failedAttempt));
  }
}
