package io.slotkeeper.receiver;

/**
 * The team's answer to a delivery: its HTTP status and body. A 2xx completes the slot, another 4xx
 * fails it at once; both are recorded and replayed. A 5xx is not recorded (its writes roll back),
 * so slotkeeper's retry runs the effect again.
 */
public record Response(int status, String body) {

  public Response {
    if (status < 200 || status > 599) {
      throw new IllegalArgumentException("a response status is 200 to 599, not " + status);
    }
    body = body == null ? "" : body;
  }

  public static Response ok(String body) {
    return new Response(200, body);
  }
}
