package io.slotkeeper.commands;

/** A row of the command ledger: the command ID was applied, with this outcome. */
record LedgerEntry(
    String commandId,
    String commandType,
    String aggregateId,
    String payloadSha256,
    Object result) {}
