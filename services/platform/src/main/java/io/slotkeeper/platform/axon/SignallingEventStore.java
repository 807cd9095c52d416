package io.slotkeeper.platform.axon;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingEventStream;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;

/**
 * Axon's {@link EmbeddedEventStore} whose streams tell a pooled streaming processor when events are
 * there.
 *
 * <p>Why: the embedded store's streams do not support {@code setOnAvailableCallback}, and a pooled
 * processor's coordinator that has caught up with such a stream looks again only after a fixed 500
 * ms; the read tables then lag up to half a second behind every command. Here, a commit of this
 * instance has the store's producer fetch and wakes every open stream {@link
 * #LOCAL_COMMIT_COALESCE_MS} later (commits within that window share one fetch and one wake-up, so
 * a busy instance's projections work in batches instead of one transaction per command and
 * segment), and a timer (every {@code fetchDelay}) wakes them for events written by other
 * instances, which the store's producer fetches on that same period.
 */
public final class SignallingEventStore extends EmbeddedEventStore {

  /** How long a woken stream waits for the store's producer to fetch a local commit. */
  static final int LOCAL_COMMIT_WAIT_MS = 100;

  /** Local commits within this many milliseconds share one wake-up of the streams. */
  static final int LOCAL_COMMIT_COALESCE_MS = 50;

  private final AtomicBoolean wakePending = new AtomicBoolean();

  private final Set<Stream> streams = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;

  private SignallingEventStore(Builder builder, long fetchDelayMs) {
    super(builder);
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "slotkeeper-event-signal");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(
        () -> streams.forEach(s -> s.wake(false)),
        fetchDelayMs,
        fetchDelayMs,
        TimeUnit.MILLISECONDS);
  }

  /**
   * The store on a builder of {@link EmbeddedEventStore} whose fetch delay is {@code fetchDelay}.
   */
  public static SignallingEventStore build(Builder builder, long fetchDelayMs) {
    return new SignallingEventStore(builder.fetchDelay(fetchDelayMs), fetchDelayMs);
  }

  @Override
  protected void afterCommit(List<? extends EventMessage<?>> events) {
    // Axon's store tells its producer to fetch after every commit; a busy instance then fetched
    // about twice per request, mostly nothing (the previous fetch had the events already, and an
    // empty fetch costs a second query for gaps). The producer is told once per window instead,
    // just before the streams it feeds wake up.
    if (wakePending.compareAndSet(false, true)) {
      try {
        timer.schedule(
            () -> {
              wakePending.set(false);
              SignallingEventStore.super.afterCommit(List.of());
              streams.forEach(s -> s.wake(true));
            },
            LOCAL_COMMIT_COALESCE_MS,
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException shuttingDown) {
        // The store is shutting down: no stream is left to wake.
      }
    }
  }

  @Override
  public TrackingEventStream openStream(TrackingToken trackingToken) {
    Stream stream = new Stream(super.openStream(trackingToken));
    streams.add(stream);
    return stream;
  }

  @Override
  public void shutDown() {
    timer.shutdownNow();
    super.shutDown();
  }

  /** A stream of the embedded store that calls its consumer back when it may have events. */
  private final class Stream implements TrackingEventStream {

    private final TrackingEventStream delegate;
    private final AtomicBoolean localCommit = new AtomicBoolean();
    private volatile Runnable callback = () -> {};

    Stream(TrackingEventStream delegate) {
      this.delegate = delegate;
    }

    void wake(boolean afterLocalCommit) {
      if (afterLocalCommit) {
        localCommit.set(true);
      }
      callback.run();
    }

    @Override
    public boolean setOnAvailableCallback(Runnable callback) {
      this.callback = callback;
      return true;
    }

    @Override
    public boolean hasNextAvailable(int timeout, TimeUnit unit) throws InterruptedException {
      // The coordinator asks without waiting; right after a local commit the store's producer may
      // not have fetched the event yet, so wait (briefly) for it rather than miss the wake-up.
      if (localCommit.getAndSet(false)) {
        return delegate.hasNextAvailable(
            (int) Math.max(unit.toMillis(timeout), LOCAL_COMMIT_WAIT_MS), TimeUnit.MILLISECONDS);
      }
      return delegate.hasNextAvailable(timeout, unit);
    }

    @Override
    public Optional<TrackedEventMessage<?>> peek() {
      return delegate.peek();
    }

    @Override
    public TrackedEventMessage<?> nextAvailable() throws InterruptedException {
      return delegate.nextAvailable();
    }

    @Override
    public void skipMessagesWithPayloadTypeOf(TrackedEventMessage<?> ignoredMessage) {
      delegate.skipMessagesWithPayloadTypeOf(ignoredMessage);
    }

    @Override
    public void close() {
      streams.remove(this);
      delegate.close();
    }
  }
}
