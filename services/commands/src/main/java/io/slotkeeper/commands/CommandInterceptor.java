package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import java.util.List;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.messaging.MessageHandlerInterceptor;

/**
 * A domain's handler interceptor on both command buses, run after the write side's own
 * (correlation, storable text, ledger). It may read ahead for a whole {@link CommandBatch}.
 */
public interface CommandInterceptor extends MessageHandlerInterceptor<CommandMessage<?>> {

  /**
   * Called in a batch's transaction before its commands are applied: what each command would read
   * on its own can be read here for all of them in one statement. Nothing by default.
   */
  default void prepareBatch(List<Command> commands) throws Exception {}
}
