package io.slotkeeper.operations.support;

import io.slotkeeper.operations.problem.ApiProblem;
import java.util.Map;

/** Whole-number request parameters (query parameters, message fields) checked against a range. */
public final class Ranges {

  private Ranges() {}

  /** {@code v} when in [min, max]; a 400 naming the parameter otherwise. */
  public static long inRange(String name, long v, long min, long max) {
    if (v < min || v > max) {
      throw outOfRange(name, min, max);
    }
    return v;
  }

  /** The 400 problem of a parameter that is not a whole number in [min, max]. */
  public static ApiProblem outOfRange(String name, long min, long max) {
    return ApiProblem.invalid(
        "invalid query parameter " + name,
        Map.of(name, "a whole number from " + min + " to " + max));
  }
}
