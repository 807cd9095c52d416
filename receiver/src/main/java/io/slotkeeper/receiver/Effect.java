package io.slotkeeper.receiver;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The team's work for a delivery. It runs at most once per Idempotency-Key, inside the ledger's
 * transaction on {@code connection}: its writes commit with the key's record or not at all. It must
 * not commit, roll back or change the connection's auto-commit.
 */
@FunctionalInterface
public interface Effect {

  Response apply(Connection connection, Delivery delivery) throws SQLException;
}
