package io.slotkeeper.commands;

import io.slotkeeper.events.Command;
import java.sql.SQLException;
import java.util.Optional;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each command ID at most once, with the ledger row written in the command's own
 * transaction. The first attempt is optimistic: it runs the handler and inserts the ID; a duplicate
 * then fails on the ledger's primary key (or, for a creation, on the event sequence) and rolls
 * back, and {@link CommandService} retries. A retry (attempt &gt; 1 in the metadata) looks the ID
 * up first and answers with the recorded outcome. So a new command costs one ledger statement, not
 * two, and a duplicate costs one rolled-back attempt; PostgreSQL's unique keys decide in both
 * cases. A command that applied then runs its sender's {@link SameTransactionWrite}, if any.
 */
public final class CommandDeduplicationInterceptor
    implements MessageHandlerInterceptor<CommandMessage<?>> {

  private static final Logger log = LoggerFactory.getLogger(CommandDeduplicationInterceptor.class);

  private final CommandLedger ledger;
  private final SameTransactionWrites writes;

  public CommandDeduplicationInterceptor(CommandLedger ledger, SameTransactionWrites writes) {
    this.ledger = ledger;
    this.writes = writes;
  }

  @Override
  public Object handle(UnitOfWork<? extends CommandMessage<?>> unitOfWork, InterceptorChain chain)
      throws Exception {
    Object payload = unitOfWork.getMessage().getPayload();
    if (!(payload instanceof Command)) {
      return chain.proceed();
    }
    Command command = (Command) payload;
    Optional<LedgerEntry> prior =
        isRetry(unitOfWork.getMessage()) ? ledger.find(command.commandId()) : Optional.empty();
    if (prior.isPresent()) {
      LedgerEntry entry = prior.get();
      if (!entry.payloadSha256().equals(CommandLedger.fingerprint(command))) {
        throw new CommandIdReusedException(
            command.commandId(), entry.commandType() + " on " + entry.aggregateId());
      }
      log.info(
          "duplicate command rejected: commandId={} type={} aggregate={}",
          command.commandId(),
          entry.commandType(),
          entry.aggregateId());
      return new CommandOutcome<>(entry.result(), true);
    }
    Object result;
    try {
      result = chain.proceed();
    } catch (RuntimeException rejected) {
      // A concurrent copy may have committed while this one waited for the aggregate: then the
      // rejection was caused by our own first attempt, and the true answer is "duplicate".
      if (ledger.find(command.commandId()).isPresent()) {
        throw new ConcurrentDuplicateException(command.commandId(), rejected);
      }
      throw rejected;
    }
    try {
      ledger.record(command, result);
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) {
        throw new ConcurrentDuplicateException(command.commandId(), e);
      }
      throw e;
    }
    CommandOutcome<Object> outcome = new CommandOutcome<>(result, false);
    writes.applied(unitOfWork.getMessage(), outcome);
    return outcome;
  }

  /** Whether {@link CommandService} sends this command again after a conflict. */
  private static boolean isRetry(CommandMessage<?> message) {
    Object attempt = message.getMetaData().get(CommandService.ATTEMPT);
    return attempt instanceof Number && ((Number) attempt).intValue() > 1;
  }
}
