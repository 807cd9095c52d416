package io.slotkeeper.domain.command;

import java.util.Map;

/**
 * The command is malformed or breaks a rule of its own content (HTTP 400, gRPC INVALID_ARGUMENT).
 */
public class InvalidCommandException extends IllegalArgumentException {

  private final Map<String, String> fieldErrors;

  public InvalidCommandException(String message) {
    this(message, Map.of());
  }

  public InvalidCommandException(String message, Map<String, String> fieldErrors) {
    super(message);
    this.fieldErrors = Map.copyOf(fieldErrors);
  }

  /** Field name to problem, for validation responses. */
  public Map<String, String> fieldErrors() {
    return fieldErrors;
  }
}
