package io.slotkeeper.platform.embedded;

/** An embedded PostgreSQL or Redis could not be started; the message says why and what to do. */
public final class EmbeddedServerException extends RuntimeException {

  public EmbeddedServerException(String message, Throwable cause) {
    super(message, cause);
  }
}
