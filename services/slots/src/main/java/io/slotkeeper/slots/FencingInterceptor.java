package io.slotkeeper.slots;

import io.slotkeeper.commands.CommandInterceptor;
import io.slotkeeper.events.Command;
import io.slotkeeper.events.slots.SlotCommand.FireSlot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;

/**
 * The storage side of fencing: in the fire's own transaction, raise the job's highest seen token to
 * the fire's token, or refuse the fire when its token is lower.
 *
 * <p>A fire under the token already recorded only takes a shared lock on the job's row: fires of
 * one holder (a catch-up fires thousands of slots of one job at once) then commit in parallel
 * instead of queueing behind one exclusive row lock. A fire under a higher token still takes the
 * exclusive lock, so it waits for the running fires of the older token to commit, and every fire of
 * the older token that starts after it finds the higher token and is refused.
 */
public final class FencingInterceptor implements CommandInterceptor {

  // Locks (shared) and returns the row only when its token is at least the fire's; no row means
  // the token is new (or the job is), which the exclusive RAISE below settles.
  private static final String CURRENT =
      "SELECT highest_token FROM job_fences WHERE job = ? AND highest_token >= ? FOR SHARE";
  private static final String RAISE =
      "INSERT INTO job_fences (job, highest_token, updated_at) VALUES (?, ?, now())"
          + " ON CONFLICT (job) DO UPDATE SET highest_token = EXCLUDED.highest_token,"
          + " updated_at = now() WHERE job_fences.highest_token <= EXCLUDED.highest_token"
          + " RETURNING highest_token";

  // The same check for the jobs of a batch of fires, in one statement (see prefetch).
  private static final String CURRENT_ALL =
      "SELECT job, highest_token FROM job_fences WHERE job = ANY (?) FOR SHARE";
  private static final String PREFETCHED = FencingInterceptor.class.getName() + ".prefetched";

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
      Map<String, Long> fences = unitOfWork.root().getResource(PREFETCHED);
      Long prefetched = fences == null ? null : fences.get(fire.job());
      if (prefetched != null && prefetched == fire.fencingToken()) {
        return chain.proceed();
      }
      try (Connection c = connections.getConnection()) {
        OptionalLong current = token(c, CURRENT, fire);
        boolean accepted =
            current.isPresent()
                ? current.getAsLong() == fire.fencingToken()
                : token(c, RAISE, fire).isPresent();
        if (!accepted) {
          throw new StaleFencingTokenException(fire.job(), fire.fencingToken());
        }
      }
    }
    return chain.proceed();
  }

  /**
   * Reads and share-locks, in one statement, the fences of the jobs of a batch's fires applied in
   * the current unit of work; a fire under the token read then needs no statement of its own. Any
   * other fire (a new or stale token, a job without a row) still takes the path above.
   */
  @Override
  public void prepareBatch(List<Command> commands) throws SQLException {
    String[] jobs =
        commands.stream()
            .filter(FireSlot.class::isInstance)
            .map(c -> ((FireSlot) c).job())
            .distinct()
            .toArray(String[]::new);
    if (jobs.length == 0) {
      return;
    }
    Map<String, Long> tokens =
        CurrentUnitOfWork.get().root().getOrComputeResource(PREFETCHED, k -> new HashMap<>());
    try (Connection c = connections.getConnection();
        PreparedStatement ps = c.prepareStatement(CURRENT_ALL)) {
      ps.setArray(1, c.createArrayOf("text", jobs));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          tokens.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
  }

  private static OptionalLong token(Connection c, String sql, FireSlot fire) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, fire.job());
      ps.setLong(2, fire.fencingToken());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }
}
