package io.slotkeeper.operations.support;

import io.slotkeeper.operations.problem.ApiProblem;

/** Identifiers in paths: printable ASCII without spaces, at most 128 characters. */
public final class PathIds {

  public static final int MAX_LENGTH = 128;

  private PathIds() {}

  /** The identifier {@code v} named {@code name}, validated; a 400 problem otherwise. */
  public static String require(String name, String v) {
    if (!valid(v)) {
      throw ApiProblem.invalid(
          "invalid " + name,
          java.util.Map.of(name, "1 to " + MAX_LENGTH + " printable ASCII characters, no spaces"));
    }
    return v;
  }

  /** Whether the value is an acceptable identifier. */
  public static boolean valid(String v) {
    return v != null
        && !v.isEmpty()
        && v.length() <= MAX_LENGTH
        && v.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '/');
  }
}
