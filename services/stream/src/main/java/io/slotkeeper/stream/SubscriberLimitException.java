package io.slotkeeper.stream;

/** A caller already holds as many live subscriptions as one token may (answered 429). */
public final class SubscriberLimitException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  SubscriberLimitException(int limit) {
    super(
        "this token already holds "
            + limit
            + " live event subscriptions (the limit); close one before opening another");
  }
}
