package io.slotkeeper.slots;

import io.slotkeeper.commands.DomainModule;
import java.util.List;

/**
 * The slot ledger's part of the write side: the {@link Slot} aggregate, its projection into {@code
 * job_runs} and the fencing of fires ({@link FencingInterceptor}).
 */
public final class SlotLedger {

  private SlotLedger() {}

  /** The slot ledger as a domain of the write model. */
  public static DomainModule module() {
    return new DomainModule(
        List.of(Slot.class),
        sql -> List.of(new SlotLedgerProjection(sql)),
        connections -> List.of(new FencingInterceptor(connections)));
  }
}
