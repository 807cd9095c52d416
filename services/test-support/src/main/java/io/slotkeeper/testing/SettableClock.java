package io.slotkeeper.testing;

import io.slotkeeper.scheduler.schedule.SlotClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that moves only when told to; safe to read from other threads while a test ticks it. A
 * test tool: production code reads the system clock through the {@link SlotClock} it is given.
 */
public final class SettableClock implements SlotClock {

  private final AtomicReference<Instant> now;

  /** A clock standing at {@code start}. */
  public SettableClock(Instant start) {
    this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
  }

  @Override
  public Instant now() {
    return now.get();
  }

  /** Moves the clock to {@code instant} (backwards too, to test clock steps). */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  /** Moves the clock forward by {@code step} and returns the new time. */
  public Instant advance(Duration step) {
    Objects.requireNonNull(step, "step");
    return now.updateAndGet(t -> t.plus(step));
  }
}
