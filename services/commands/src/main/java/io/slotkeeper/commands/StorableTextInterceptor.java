package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import io.slotkeeper.events.StorableText;
import java.util.Map;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * The write side's guard for {@link StorableText}: a command carrying text that cannot be stored
 * (NUL, other control characters but tab and newline, an unpaired surrogate) is refused before
 * anything is read or written, whoever sent it (API, timers, fulfilment). The API checks the same
 * rule first and answers 400; this catches every other path, so no such event is ever stored.
 */
public final class StorableTextInterceptor implements MessageHandlerInterceptor<CommandMessage<?>> {

  @Override
  public Object handle(UnitOfWork<? extends CommandMessage<?>> unitOfWork, InterceptorChain chain)
      throws Exception {
    Object payload = unitOfWork.getMessage().getPayload();
    if (payload instanceof Command) {
      Map<String, String> problems = StorableText.problemsIn(payload);
      if (!problems.isEmpty()) {
        throw new InvalidCommandException(
            payload.getClass().getSimpleName() + " carries text that cannot be stored", problems);
      }
    }
    return chain.proceed();
  }
}
