package io.slotkeeper.platform.db;

/** PostgreSQL could not be reached or refused the work for a reason that is not the caller's. */
public final class DatabaseUnavailableException extends RuntimeException {

  public DatabaseUnavailableException(String message, Throwable cause) {
    super(message + ": " + cause.getMessage(), cause);
  }
}
