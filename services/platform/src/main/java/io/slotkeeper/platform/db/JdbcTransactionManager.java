package io.slotkeeper.platform.db;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.ConnectionWrapperFactory;
import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Axon's transaction manager and connection provider in one: a transaction binds one pooled
 * connection (autoCommit off) to the current thread, and every JDBC user inside it (the event
 * store's append, the command ledger, the token store, projections) gets that same connection. So
 * events, the dedup record, tokens and read rows commit together or not at all.
 *
 * <p>Axon without Spring ships only {@code NoTransactionManager}; this class is the small
 * replacement its docs suggest. A transaction started while one is active joins it: only the
 * outermost commits or rolls back.
 */
public final class JdbcTransactionManager implements TransactionManager, ConnectionProvider {

  private static final Logger log = LoggerFactory.getLogger(JdbcTransactionManager.class);
  private static final ThreadLocal<Connection> CURRENT = new ThreadLocal<>();

  private final DataSource dataSource;

  public JdbcTransactionManager(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public Transaction startTransaction() {
    if (CURRENT.get() != null) {
      return JOINED;
    }
    Connection connection;
    try {
      connection = dataSource.getConnection();
      connection.setAutoCommit(false);
    } catch (SQLException e) {
      throw new DatabaseUnavailableException("cannot open a transaction", e);
    }
    CURRENT.set(connection);
    return new Transaction() {
      @Override
      public void commit() {
        try {
          connection.commit();
        } catch (SQLException e) {
          throw new DatabaseUnavailableException("commit failed", e);
        } finally {
          release(connection);
        }
      }

      @Override
      public void rollback() {
        try {
          connection.rollback();
        } catch (SQLException e) {
          log.warn("rollback failed; the connection is discarded", e);
        } finally {
          release(connection);
        }
      }
    };
  }

  /** The current transaction's connection (closing it is a no-op), or a pooled autocommit one. */
  @Override
  public Connection getConnection() throws SQLException {
    Connection bound = CURRENT.get();
    if (bound != null) {
      return ConnectionWrapperFactory.wrap(bound, new ConnectionWrapperFactory.NoOpCloseHandler());
    }
    return dataSource.getConnection();
  }

  /** Whether the calling thread is inside a transaction of this manager. */
  public static boolean inTransaction() {
    return CURRENT.get() != null;
  }

  private static void release(Connection connection) {
    CURRENT.remove();
    try {
      connection.setAutoCommit(true);
      connection.close();
    } catch (SQLException e) {
      log.warn("could not return a connection to the pool", e);
    }
  }

  private static final Transaction JOINED =
      new Transaction() {
        @Override
        public void commit() {
          // the outermost transaction commits
        }

        @Override
        public void rollback() {
          // the outermost transaction rolls back; mark nothing here, the exception propagates
        }
      };
}
