package io.slotkeeper.scheduler.schedule;

import java.time.Instant;

/**
 * The scheduler's only source of "now". Everything that decides on time takes a clock instead of
 * calling {@link Instant#now()}, so tests tick a settable clock instead of sleeping ({@code
 * io.slotkeeper.testing.SettableClock} in test-support).
 */
@FunctionalInterface
public interface SlotClock {

  /** The current instant. */
  Instant now();

  /** The machine's UTC clock. */
  static SlotClock system() {
    return Instant::now;
  }
}
