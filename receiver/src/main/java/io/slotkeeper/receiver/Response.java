package io.slotkeeper.receiver;

/**
 * The team's answer to a delivery: its HTTP status and body. A 2xx completes the slot, a 4xx other
 * than 408 and 429 fails it at once; both are recorded and replayed. A 408, 429 or 5xx asks
 * slotkeeper to try again: it is not recorded and its writes roll back, so the retry runs the
 * effect again.
 */
public record Response(int status, String body) {

  public Response {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException("a response status is 200 to 599, not " + status);
    }
    body = body == null ? "" : body;
  }

  /** Whether slotkeeper retries this answer (408, 429, 5xx), so it must not be recorded. */
  public boolean asksForRetry() {
    return status >= 500 || status == 408 || status == 429;
  }

  public static Response ok(String body) {
    return new Response(200, body);
  }
}
