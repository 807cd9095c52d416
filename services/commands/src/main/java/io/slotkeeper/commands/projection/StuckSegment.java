package io.slotkeeper.commands.projection;

import java.time.Duration;
import java.time.Instant;

/**
 * A projection segment that does not advance: where it stands ({@code position}: for a failing
 * segment the global index of the event it cannot get past, else its stored position), why, the
 * error, since when and the failed attempts since ({@code 0} when unclaimed).
 */
public record StuckSegment(
    String processor,
    int segment,
    Reason reason,
    long position,
    String error,
    Instant since,
    long attempts) {

  /** A segment with no live claim for longer than this is reported (claims lapse after 10 s). */
  public static final Duration UNCLAIMED_AFTER = Duration.ofSeconds(30);

  /** Why a segment does not advance. */
  public enum Reason {
    /** Its batch fails on this instance (see {@link ProjectionFailures}). */
    FAILING,
    /** No instance holds it. */
    UNCLAIMED
  }
}
