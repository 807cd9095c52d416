package io.slotkeeper.receiver;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The receiver as a Vert.x Web handler: checks the signature (401) and the headers (400), then runs
 * {@link DeliveryLedger#handle} with the team's {@link Effect} on a worker thread and answers what
 * it decided. Mount it with {@link #mount}, which puts the body limit in front of it:
 *
 * <pre>{@code
 * ReceiverHandler.builder(dataSource, List.of(secret), effect).build()
 *     .mount(router.post("/slotkeeper/deliveries"));
 * }</pre>
 */
public final class ReceiverHandler implements Handler<RoutingContext> {

  /** The largest body accepted unless set: slotkeeper's bodies are small templates. */
  public static final long DEFAULT_MAX_BODY_BYTES = 256 * 1024;

  private static final System.Logger LOG = System.getLogger(ReceiverHandler.class.getName());

  private final DataSource dataSource;
  private final List<String> secrets;
  private final Effect effect;
  private final DeliveryLedger ledger;
  private final Duration tolerance;
  private final long maxBodyBytes;
  private final String contentType;
  private final Clock clock;

  private ReceiverHandler(Builder b) {
    this.dataSource = b.dataSource;
    this.secrets = b.secrets;
    this.effect = b.effect;
    this.ledger = b.ledger;
    this.tolerance = b.tolerance;
    this.maxBodyBytes = b.maxBodyBytes;
    this.contentType = b.contentType;
    this.clock = b.clock;
  }

  /**
   * A handler that runs {@code effect} on connections of {@code dataSource}, for deliveries signed
   * under one of {@code secrets} (two during a rotation).
   */
  public static Builder builder(DataSource dataSource, List<String> secrets, Effect effect) {
    return new Builder(dataSource, secrets, effect);
  }

  /**
   * Mounts the receiver on {@code route}: a body handler with the body limit (a larger body is
   * 413), this handler, and a failure handler that answers the route's failures as problem
   * documents.
   */
  public Route mount(Route route) {
    return route
        .handler(BodyHandler.create(false).setBodyLimit(maxBodyBytes))
        .handler(this)
        .failureHandler(this::failed);
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!ctx.body().available()) {
      throw new IllegalStateException("ReceiverHandler needs a BodyHandler before it: use mount()");
    }
    Buffer buffer = ctx.body().buffer();
    byte[] body = buffer == null ? new byte[0] : buffer.getBytes();
    if (body.length > maxBodyBytes) {
      answer(ctx, new Problem(413, "Payload Too Large", tooLarge()));
      return;
    }
    Signature.Verification signature =
        Signature.verify(
            secrets,
            ctx.request().getHeader(DeliveryHeaders.SIGNATURE),
            body,
            clock.instant(),
            tolerance);
    if (!signature.valid()) {
      answer(
          ctx,
          new Problem(
              401,
              "Unauthorized",
              "the delivery's signature is refused: " + signature.reason(),
              Map.of(DeliveryHeaders.SIGNATURE, signature.detail())));
      return;
    }
    Delivery delivery;
    try {
      delivery = DeliveryHeaders.read(ctx.request()::getHeader, body);
    } catch (DeliveryHeaders.InvalidDeliveryException e) {
      answer(
          ctx, new Problem(400, "Bad Request", "the delivery's headers are invalid", e.errors()));
      return;
    }
    ctx.vertx()
        .executeBlocking(() -> record(delivery), false)
        .onSuccess(
            outcome ->
                ctx.response()
                    .setStatusCode(outcome.status())
                    .putHeader(
                        "Content-Type", outcome.problem() ? Problem.CONTENT_TYPE : contentType)
                    .end(outcome.body()))
        .onFailure(
            e -> {
              // not the sender's mistake: it retries a 503
              LOG.log(
                  System.Logger.Level.WARNING,
                  "delivery " + delivery.idempotencyKey() + " not recorded: " + e,
                  e);
              answer(
                  ctx,
                  new Problem(
                      503,
                      "Service Unavailable",
                      "the delivery could not be recorded; it is safe to retry"));
            });
  }

  private Outcome record(Delivery delivery) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      return ledger.handle(c, delivery, effect);
    }
  }

  private void failed(RoutingContext ctx) {
    if (ctx.statusCode() == 413) {
      answer(ctx, new Problem(413, "Payload Too Large", tooLarge()));
    } else if (ctx.statusCode() >= 400 && ctx.statusCode() < 500) {
      answer(ctx, new Problem(ctx.statusCode(), "Bad Request", "the request cannot be read"));
    } else {
      ctx.next();
    }
  }

  private String tooLarge() {
    return "the body is larger than " + maxBodyBytes + " bytes";
  }

  private static void answer(RoutingContext ctx, Problem problem) {
    if (!ctx.response().ended()) {
      ctx.response()
          .setStatusCode(problem.status())
          .putHeader("Content-Type", Problem.CONTENT_TYPE)
          .end(problem.json());
    }
  }

  /** The handler's settings; every one but the data source, the secrets and the effect defaults. */
  public static final class Builder {

    private final DataSource dataSource;
    private final List<String> secrets;
    private final Effect effect;
    private DeliveryLedger ledger = new DeliveryLedger();
    private Duration tolerance = Signature.DEFAULT_TOLERANCE;
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private String contentType = "application/json";
    private Clock clock = Clock.systemUTC();

    private Builder(DataSource dataSource, List<String> secrets, Effect effect) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.secrets = List.copyOf(secrets);
      this.effect = Objects.requireNonNull(effect, "effect");
      if (this.secrets.isEmpty() || this.secrets.stream().anyMatch(String::isEmpty)) {
        throw new IllegalArgumentException("at least one non-empty secret is needed");
      }
    }

    /** The ledger (its statement timeout); {@link DeliveryLedger#DEFAULT_STATEMENT_TIMEOUT}. */
    public Builder ledger(DeliveryLedger ledger) {
      this.ledger = Objects.requireNonNull(ledger);
      return this;
    }

    /** How far a signature's time may be from now, either way; 5 minutes by default. */
    public Builder tolerance(Duration tolerance) {
      this.tolerance = Objects.requireNonNull(tolerance);
      return this;
    }

    /** The largest body accepted (413 beyond); 256 KiB by default. */
    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes < 1) {
        throw new IllegalArgumentException("the body limit must be positive");
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /** The content type of the effect's answers; {@code application/json} by default. */
    public Builder contentType(String contentType) {
      this.contentType = Objects.requireNonNull(contentType);
      return this;
    }

    /** The clock a signature's age is measured by (a test's fixed clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    public ReceiverHandler build() {
      return new ReceiverHandler(this);
    }
  }
}
