package io.slotkeeper.operations.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/** The two bearer tokens; comparisons take constant time so they leak nothing by timing. */
public record Tokens(String clientToken, String operatorToken) {

  /** The role of a presented token, if it is one of ours. */
  public Optional<Role> roleOf(String presented) {
    if (presented == null) {
      return Optional.empty();
    }
    if (same(presented, operatorToken)) {
      return Optional.of(Role.OPERATOR);
    }
    if (same(presented, clientToken)) {
      return Optional.of(Role.CLIENT);
    }
    return Optional.empty();
  }

  private static boolean same(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
