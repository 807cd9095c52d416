package io.slotkeeper.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HostLimitsTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aFloodWaitsForItsTurnInABoundedQueue() throws Exception {
    HostLimits limits = new HostLimits(vertx, 2, 1, Duration.ofSeconds(10));
    HostLimits.Permit a = limits.acquire("h:80", "s", 0).await(1, TimeUnit.SECONDS);
    limits.acquire("h:80", "s", 0).await(1, TimeUnit.SECONDS);
    Future<HostLimits.Permit> third = limits.acquire("h:80", "s", 0);
    Future<HostLimits.Permit> fourth = limits.acquire("h:80", "s", 0);
    assertThat(third.isComplete()).isFalse();
    assertThat(fourth.failed()).isTrue();
    assertThat(fourth.cause().getMessage()).contains("h:80");
    // Another host has its own places.
    assertThat(limits.acquire("other:80", "s", 0).succeeded()).isTrue();
    a.release();
    a.release();
    assertThat(third.succeeded()).isTrue();
    assertThat(limits.inFlight("h:80")).isEqualTo(2);
  }

  @Test
  void aWaitPastTheBoundFails() throws Exception {
    HostLimits limits = new HostLimits(vertx, 1, 5, Duration.ofMillis(100));
    limits.acquire("h:80", "s", 0).await(1, TimeUnit.SECONDS);
    Future<HostLimits.Permit> waiting = limits.acquire("h:80", "s", 0);
    Thread.sleep(400);
    assertThat(waiting.failed()).isTrue();
    assertThat(waiting.cause().getMessage()).contains("waited");
  }

  @Test
  void aSchedulesRateSpacesItsDeliveries() throws Exception {
    HostLimits limits = new HostLimits(vertx, 8, 100, Duration.ofSeconds(10));
    long started = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      limits.acquire("h:80", "rated", 10).await(5, TimeUnit.SECONDS).release();
    }
    // 10 per second: the third waits 200 ms behind the first.
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(180));
  }
}
