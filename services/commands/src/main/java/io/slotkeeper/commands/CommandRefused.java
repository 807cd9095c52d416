package io.slotkeeper.commands;

import java.util.Map;

/**
 * A command turned down for the caller's reason, not the infrastructure's: sent again unchanged, it
 * is turned down again. Every refusal of the write side extends this type, and each reader of
 * refusals reads its {@link Kind}: the API answers each kind with one HTTP and gRPC status, the
 * command metrics count it as rejected (not failed), a job logs it and goes on with its other
 * targets instead of retrying.
 */
public abstract class CommandRefused extends RuntimeException {

  /** Why a command was refused; each kind is one answer of the API. */
  public enum Kind {
    /** The command is malformed (HTTP 400, gRPC INVALID_ARGUMENT). */
    BAD_INPUT("Invalid request"),
    /** It names an aggregate that does not exist (404, NOT_FOUND). */
    NOT_FOUND("Not Found"),
    /** The current state forbids it (409, FAILED_PRECONDITION). */
    WRONG_STATE("Conflict with current state"),
    /** It would create what another command created (409, ALREADY_EXISTS). */
    CONFLICT("Already exists"),
    /**
     * Well formed and allowed by the state, but it would break a limit, or it reuses an ID or key
     * spent on something else (422, FAILED_PRECONDITION).
     */
    RULE_VIOLATED("Rule violated"),
    /**
     * It was sent for a version of the aggregate that is no longer current (an {@code If-Match}
     * that does not match: 412, FAILED_PRECONDITION).
     */
    STALE_VERSION("Precondition Failed");

    private final String title;

    Kind(String title) {
      this.title = title;
    }

    /** The short summary of a refusal of this kind, unless the refusal names its own. */
    public String title() {
      return title;
    }
  }

  private final Kind kind;
  private final String title;

  protected CommandRefused(Kind kind, String message) {
    this(kind, kind.title(), message);
  }

  protected CommandRefused(Kind kind, String title, String message) {
    super(message);
    this.kind = kind;
    this.title = title;
  }

  /** Without a stack trace: for refusals raised where the trace says nothing (e.g. at commit). */
  protected CommandRefused(Kind kind, String title, String message, boolean stackTrace) {
    super(message, null, false, stackTrace);
    this.kind = kind;
    this.title = title;
  }

  public Kind kind() {
    return kind;
  }

  /** A short summary (a problem's title); the message says what was refused and why. */
  public String title() {
    return title;
  }

  /** Field name to problem, for a {@link Kind#BAD_INPUT} refusal that names its fields. */
  public Map<String, String> fieldErrors() {
    return Map.of();
  }
}
