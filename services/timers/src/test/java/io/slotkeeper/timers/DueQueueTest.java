package io.slotkeeper.timers;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One queue, one armed timer: entries run in due order, and a replaced or cancelled one never. */
class DueQueueTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void entriesRunInDueOrderAndReplacedOrCancelledOnesNever() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    vertx.runOnContext(
        v -> {
          DueQueue due = new DueQueue(vertx, System::nanoTime);
          due.schedule("c", 150, () -> ran.add("c"));
          due.schedule("a", 30, () -> ran.add("a-old"));
          due.schedule("a", 60, () -> ran.add("a")); // replaces a-old
          due.schedule("b", 90, () -> ran.add("b"));
          due.schedule("x", 100, () -> ran.add("x"));
          due.cancel("x");
          due.schedule("end", 250, done::countDown);
          assertThat(due.pending("x")).isFalse();
          assertThat(due.size()).isEqualTo(4);
        });
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).containsExactly("a", "b", "c");
  }

  @Test
  void anActionCanScheduleItsOwnerAgain() throws Exception {
    List<Long> ticks = new CopyOnWriteArrayList<>();
    CountDownLatch three = new CountDownLatch(3);
    vertx.runOnContext(
        v -> {
          DueQueue due = new DueQueue(vertx, System::nanoTime);
          Runnable[] tick = new Runnable[1];
          tick[0] =
              () -> {
                ticks.add(System.nanoTime());
                three.countDown();
                if (ticks.size() < 3) {
                  due.schedule("self", 20, tick[0]);
                }
              };
          due.schedule("self", 20, tick[0]);
        });
    assertThat(three.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(ticks).hasSize(3);
    assertThat(TimeUnit.NANOSECONDS.toMillis(ticks.get(2) - ticks.get(0)))
        .isGreaterThanOrEqualTo(38);
  }
}
