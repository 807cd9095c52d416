package io.slotkeeper.domain.slots;

import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * The storage side of fencing: in the fire's own transaction, raise the job's highest seen token to
 * the fire's token, or refuse the fire when its token is lower. The row lock this takes also orders
 * concurrent fires of one job.
 */
public final class FencingInterceptor implements MessageHandlerInterceptor<CommandMessage<?>> {

  private static final String RAISE =
      "INSERT INTO job_fences (job, highest_token, updated_at) VALUES (?, ?, now())"
          + " ON CONFLICT (job) DO UPDATE SET highest_token = EXCLUDED.highest_token,"
          + " updated_at = now() WHERE job_fences.highest_token <= EXCLUDED.highest_token"
          + " RETURNING highest_token";

  private final ConnectionProvider connections;

  public FencingInterceptor(ConnectionProvider connections) {
    this.connections = connections;
  }

  @Override
  public Object handle(UnitOfWork<? extends CommandMessage<?>> unitOfWork, InterceptorChain chain)
      throws Exception {
    Object payload = unitOfWork.getMessage().getPayload();
    if (payload instanceof FireSlot) {
      FireSlot fire = (FireSlot) payload;
      try (Connection c = connections.getConnection();
          PreparedStatement ps = c.prepareStatement(RAISE)) {
        ps.setString(1, fire.job());
        ps.setLong(2, fire.fencingToken());
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new StaleFencingTokenException(fire.job(), fire.fencingToken());
          }
        }
      }
    }
    return chain.proceed();
  }
}
