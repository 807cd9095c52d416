package io.slotkeeper.delivery;

import io.slotkeeper.delivery.AttemptRecord.Outcome;
import io.slotkeeper.metrics.SlotkeeperMetrics;
import io.slotkeeper.scheduler.schedule.job.HttpTarget;
import io.slotkeeper.slots.AttemptFailedException;
import io.slotkeeper.slots.JobHandler;
import io.slotkeeper.slots.SlotRun;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handler of schedules with an HTTP target ({@code handler: http}): one signed request per
 * attempt, sent on the event loop by its own Web Client (own connection pool, redirects not
 * followed) to an address the {@link TargetGuard} accepted after resolving the host; its outcome
 * recorded in {@code delivery_attempts} and the metrics, then answered to the slot runner: 2xx
 * completes, 408/429/5xx/timeouts/connection errors fail the attempt for the retry policy (a
 * Retry-After delays the next one), any other 4xx (and 409, stale) fails it with no retry.
 *
 * <p>The runner calls it on a worker thread; it waits there for the event loop's answer.
 */
public final class HttpDelivery implements JobHandler, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(HttpDelivery.class);

  /** What the handler needs from the service. */
  public record Wiring(
      Function<String, Optional<HttpTarget>> targets,
      Function<String, Optional<String>> secrets,
      DeliveryAttempts attempts,
      SlotkeeperMetrics metrics,
      String instanceId,
      Clock clock) {}

  private final WebClient client;
  private final TargetGuard guard;
  private final HostLimits limits;
  private final DeliverySettings settings;
  private final Wiring wiring;

  public HttpDelivery(Vertx vertx, DeliverySettings settings, TargetGuard guard, Wiring wiring) {
    this.settings = settings;
    this.guard = guard;
    this.wiring = wiring;
    this.limits =
        new HostLimits(vertx, settings.perHost(), settings.maxQueued(), settings.maxWait());
    this.client =
        WebClient.create(
            vertx,
            new WebClientOptions()
                .setFollowRedirects(false)
                .setUserAgent("slotkeeper")
                .setConnectTimeout(5_000)
                .setForceSni(true),
            new PoolOptions().setHttp1MaxSize(settings.perHost()));
  }

  /** The host limits (for tests). */
  HostLimits limits() {
    return limits;
  }

  @Override
  public Map<String, Long> run(SlotRun run) throws Exception {
    HttpTarget target =
        wiring
            .targets()
            .apply(run.job())
            .orElseThrow(() -> AttemptFailedException.permanent(run.job() + " has no HTTP target"));
    Optional<String> earlier = wiring.attempts().finalOutcome(run.slotId(), run.fencingToken());
    if (earlier.isPresent()) {
      throw AttemptFailedException.permanent(
          "not sent again: an earlier attempt ended as " + earlier.get());
    }
    Instant sentAt = wiring.clock().instant();
    long started = System.nanoTime();
    Optional<String> secret = Optional.empty();
    if (target.secretRef() != null) {
      secret = wiring.secrets().apply(target.secretVariable());
      if (secret.isEmpty()) {
        return finish(
            run,
            target,
            null,
            sentAt,
            started,
            Outcome.NO_SECRET,
            null,
            "the environment variable " + target.secretVariable() + " is not set",
            null,
            null);
      }
    }
    DeliveryRequest request = DeliveryRequest.of(target, run, secret, sentAt);
    InetAddress address;
    try {
      address = resolve(target.url());
    } catch (UnknownHostException e) {
      return finish(
          run,
          target,
          request,
          sentAt,
          started,
          Outcome.CONNECTION_ERROR,
          null,
          "unknown host " + target.url().getHost(),
          null,
          null);
    } catch (RefusedAddress e) {
      return finish(
          run, target, request, sentAt, started, Outcome.BLOCKED, null, e.getMessage(), null, null);
    }
    HttpResponse<Buffer> response;
    try {
      response =
          send(run, target, address, request)
              .toCompletionStage()
              .toCompletableFuture()
              .get(waitBound(target), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      boolean timeout =
          cause instanceof TimeoutException
              || String.valueOf(cause.getMessage()).contains("timeout");
      return finish(
          run,
          target,
          request,
          sentAt,
          started,
          timeout ? Outcome.TIMEOUT : Outcome.CONNECTION_ERROR,
          null,
          String.valueOf(cause),
          null,
          null);
    } catch (TimeoutException e) {
      return finish(
          run,
          target,
          request,
          sentAt,
          started,
          Outcome.TIMEOUT,
          null,
          "no answer within " + target.timeout(),
          null,
          null);
    }
    int status = response.statusCode();
    return finish(
        run,
        target,
        request,
        sentAt,
        started,
        AttemptRecord.classify(status),
        status,
        status >= 300 ? "HTTP " + status : null,
        head(response.body()),
        retryAfter(response.getHeader("Retry-After"), wiring.clock().instant()));
  }

  private Future<HttpResponse<Buffer>> send(
      SlotRun run, HttpTarget target, InetAddress address, DeliveryRequest request) {
    URI url = target.url();
    String path =
        (url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath())
            + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
    return limits
        .acquire(target.hostPort(), run.job(), target.maxPerSecond())
        .compose(
            permit -> {
              // Connect to the address the guard accepted, not to a second lookup's answer.
              HttpRequest<Buffer> http =
                  client
                      .request(
                          HttpMethod.valueOf(request.method()),
                          SocketAddress.inetSocketAddress(target.port(), address.getHostAddress()),
                          target.port(),
                          url.getHost(),
                          path)
                      .ssl("https".equalsIgnoreCase(url.getScheme()))
                      .followRedirects(false)
                      .timeout(target.timeout().toMillis());
              request.headers().forEach(http::putHeader);
              Future<HttpResponse<Buffer>> sent =
                  request.body().length == 0 && request.method().equals("GET")
                      ? http.send()
                      : http.sendBuffer(Buffer.buffer(request.body()));
              return sent.onComplete(done -> permit.release());
            });
  }

  /** Past the target's timeout, the turn's wait and the rate's: a lost answer ends the wait. */
  private long waitBound(HttpTarget target) {
    return target.timeout().plus(settings.maxWait()).plusSeconds(5).toMillis()
        + (target.maxPerSecond() > 0 ? settings.maxQueued() * 1000L / target.maxPerSecond() : 0);
  }

  private InetAddress resolve(URI url) throws UnknownHostException, RefusedAddress {
    InetAddress[] all = InetAddress.getAllByName(TargetGuard.host(url));
    // Every address must pass: a name with one public and one private address is refused.
    for (InetAddress a : all) {
      Optional<String> refused = guard.refusal(url, a);
      if (refused.isPresent()) {
        throw new RefusedAddress(refused.get());
      }
    }
    return all[0];
  }

  private static final class RefusedAddress extends Exception {
    private static final long serialVersionUID = 1L;

    RefusedAddress(String message) {
      super(message, null, false, false);
    }
  }

  private Map<String, Long> finish(
      SlotRun run,
      HttpTarget target,
      DeliveryRequest request,
      Instant sentAt,
      long started,
      Outcome outcome,
      Integer status,
      String error,
      String head,
      Duration retryAfter)
      throws AttemptFailedException {
    Duration latency = Duration.ofNanos(System.nanoTime() - started);
    AttemptRecord record =
        new AttemptRecord(
            run.slotId(),
            run.attempt(),
            run.fencingToken(),
            wiring.instanceId(),
            run.job(),
            run.nominal(),
            run.commandId(DeliveryRequest.KEY_TARGET),
            target.url().toString(),
            outcome,
            status,
            latency,
            error,
            head,
            retryAfter,
            sentAt);
    try {
      wiring.attempts().record(record);
    } catch (SQLException e) {
      // The slot's own completion or failure still records the outcome; only this row is lost.
      log.warn("delivery attempt of {} not recorded: {}", run.slotId(), e.toString());
    }
    wiring.metrics().delivery(run.job(), outcome.tag(), latency);
    String what =
        outcome.tag() + (status == null ? "" : " " + status) + (error == null ? "" : ": " + error);
    switch (outcome) {
      case DELIVERED:
        return Map.of("deliveries", 1L, "httpStatus", (long) status);
      case RETRY_STATUS:
        if (retryAfter != null) {
          throw AttemptFailedException.retryAfter(what, retryAfter);
        }
        throw AttemptFailedException.retryable(what);
      case TIMEOUT:
      case CONNECTION_ERROR:
        throw AttemptFailedException.retryable(what);
      default:
        throw AttemptFailedException.permanent(what);
    }
  }

  /** The first 1 KiB of the answer, cut at a whole character. */
  static String head(Buffer body) {
    if (body == null || body.length() == 0) {
      return null;
    }
    byte[] bytes = body.getBytes(0, Math.min(body.length(), AttemptRecord.RESPONSE_HEAD_BYTES));
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    decoder.decode(ByteBuffer.wrap(bytes), out, true);
    out.flip();
    // PostgreSQL text holds no NUL.
    return out.toString().replace('\u0000', '\uFFFD');
  }

  /** A Retry-After in seconds or as an HTTP date, or null when absent or unreadable. */
  static Duration retryAfter(String value, Instant now) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      long seconds = Long.parseLong(value.trim());
      return seconds < 0 ? null : Duration.ofSeconds(Math.min(seconds, 86_400));
    } catch (NumberFormatException e) {
      try {
        Instant at =
            java.time.ZonedDateTime.parse(
                    value.trim(), java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                .toInstant();
        Duration d = Duration.between(now, at);
        return d.isNegative() ? Duration.ZERO : d;
      } catch (java.time.format.DateTimeParseException x) {
        return null;
      }
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
