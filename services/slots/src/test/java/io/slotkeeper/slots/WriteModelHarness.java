package io.slotkeeper.slots;

import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.testing.DatabaseHarness;
import java.util.List;

/** A fresh database, and write models of the slot ledger alone on it. */
final class WriteModelHarness extends DatabaseHarness {

  WriteModelHarness(String purpose) {
    super(purpose);
  }

  /** A new write model (its own command bus and processors) on the shared database. */
  WriteModel start(String instanceId, boolean startProcessors) {
    return closing(
        WriteModel.start(
            database(8, instanceId),
            List.of(SlotLedger.module()),
            new WriteModel.Options(instanceId, 4, startProcessors)));
  }
}
