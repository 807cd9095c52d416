package io.slotkeeper.business.jobs;

import io.slotkeeper.slots.SlotRun;
import java.time.Duration;
import java.time.format.DateTimeParseException;

/** Parses handler parameters; a bad value fails the attempt with the job and parameter named. */
final class JobParams {

  private JobParams() {}

  static int positiveInt(SlotRun run, String name, int fallback) {
    String raw = run.param(name, Integer.toString(fallback));
    try {
      int value = Integer.parseInt(raw.trim());
      if (value > 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw bad(run, name, raw, "a positive integer");
  }

  /** An ISO-8601 duration; whole days ({@code P1D}, {@code P30D}) are 24 h each. */
  static Duration positiveDuration(SlotRun run, String name, Duration fallback) {
    String raw = run.param(name, fallback.toString());
    try {
      Duration value = Duration.parse(raw.trim());
      if (!value.isNegative() && !value.isZero()) {
        return value;
      }
    } catch (DateTimeParseException e) {
      // reported below
    }
    throw bad(run, name, raw, "a positive ISO-8601 duration such as PT5M or P1D");
  }

  private static IllegalArgumentException bad(
      SlotRun run, String name, String raw, String expected) {
    return new IllegalArgumentException(
        "job " + run.job() + ": param " + name + " is '" + raw + "', expected " + expected);
  }
}
