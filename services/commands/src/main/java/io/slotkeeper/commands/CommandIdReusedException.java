package io.slotkeeper.commands;

/**
 * A command ID that was already applied arrived with a different command or payload. It is neither
 * a duplicate (the original outcome would be a lie) nor new (the ID is spent): HTTP 422.
 */
public class CommandIdReusedException extends CommandRefused {

  private final String commandId;

  public CommandIdReusedException(String commandId, String appliedAs) {
    super(
        Kind.RULE_VIOLATED,
        "Command ID reused",
        "command ID "
            + commandId
            + " was already applied to a different command ("
            + appliedAs
            + ")");
    this.commandId = commandId;
  }

  public String commandId() {
    return commandId;
  }
}
