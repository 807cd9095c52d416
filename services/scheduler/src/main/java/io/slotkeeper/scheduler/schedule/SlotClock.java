package io.slotkeeper.scheduler.schedule;

import java.time.Instant;

/**
 * The scheduler's only source of "now". Everything that decides on time takes a clock instead of
 * calling {@link Instant#now()}, so tests tick a {@link SettableClock} instead of sleeping.
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
