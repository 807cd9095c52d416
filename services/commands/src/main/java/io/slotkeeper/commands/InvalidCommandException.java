package io.slotkeeper.commands;

import java.util.Map;

/**
 * The command is malformed or breaks a rule of its own content (HTTP 400, gRPC INVALID_ARGUMENT).
 */
public class InvalidCommandException extends CommandRefused {

  private final Map<String, String> fieldErrors;

  public InvalidCommandException(String message) {
    this(message, Map.of());
  }

  public InvalidCommandException(String message, Map<String, String> fieldErrors) {
    super(Kind.BAD_INPUT, message);
    this.fieldErrors = Map.copyOf(fieldErrors);
  }

  /** Field name to problem, for validation responses. */
  @Override
  public Map<String, String> fieldErrors() {
    return fieldErrors;
  }
}
