package io.slotkeeper.commands;

/**
 * What a command produced. {@code duplicate} is true when the command ID had already been applied:
 * then {@code result} is the original outcome and nothing changed.
 */
public record CommandOutcome<R>(R result, boolean duplicate) {}
