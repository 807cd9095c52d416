package io.slotkeeper.stream;

import io.slotkeeper.events.StreamIds;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads {@code domain_event_entry} in position order, never past a gap that may still fill in.
 *
 * <p>{@code global_index} comes from a sequence, so a transaction that took index 7 can commit
 * after the one that took 8. A reader that returned 8 and then resumed after 8 would never see 7.
 * So a page stops before the first missing index. A missing index is only skipped once the event
 * after it is older than the gap timeout (measured against PostgreSQL's clock): its own transaction
 * took the lower index earlier still, and command transactions are short, so by then the index
 * belonged to a transaction that rolled back (a lost race of two first attempts, for example) and
 * will never appear. This is the gap handling of Axon's own tracking processors, made stateless.
 */
public final class EventReader {

  public static final int MAX_LIMIT = 1000;

  /**
   * Positions one filtered page reads at most, matching or not: a filter that matches little costs
   * a client bounded work per request.
   */
  public static final int MAX_SCAN = 10 * MAX_LIMIT;

  /** The columns of a stored event that {@link #event(Row)} reads. */
  static final String COLUMNS =
      "SELECT global_index, event_identifier, type, aggregate_identifier, sequence_number,"
          + " payload_type, time_stamp, payload, meta_data";

  private static final String PAGE =
      COLUMNS
          + ", (extract(epoch from clock_timestamp()) * 1000)::bigint AS db_now"
          + " FROM domain_event_entry WHERE global_index > $1 ORDER BY global_index LIMIT $2";

  private static final String HEAD =
      "SELECT coalesce(max(global_index), 0) AS head FROM domain_event_entry";

  /** How often the one tail reader of an instance reads while anyone subscribes. */
  static final long HEAD_MILLIS = 100;

  /** The most recent events the tail keeps for subscriptions that have caught up. */
  static final int TAIL_EVENTS = 2000;

  /**
   * The store's newest events as the one tail reader of this instance read them: every event in
   * {@code (from, to]}, in position order, gap-safe (read like any page). Immutable; replaced
   * whole.
   */
  record Tail(long from, long to, List<StreamEvent> events) {
    static final Tail UNKNOWN = new Tail(-1, -1, List.of());

    /** Whether every event after {@code position} up to {@link #to} is held here. */
    boolean covers(long position) {
      return from >= 0 && from <= position && position <= to;
    }

    /** Up to {@code limit} held events after {@code position} that match {@code filter}. */
    EventPage after(long position, int limit, EventFilter filter) {
      List<StreamEvent> out = new ArrayList<>();
      int i = firstAfter(position);
      for (; i < events.size() && out.size() < limit; i++) {
        StreamEvent e = events.get(i);
        if (filter.matches(e.aggregateType(), e.type())) {
          out.add(e);
        }
      }
      // every held event before index i has been considered
      return new EventPage(out, i < events.size() ? events.get(i - 1).position() : to);
    }

    private int firstAfter(long position) {
      int lo = 0;
      int hi = events.size();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (events.get(mid).position() <= position) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    /** This tail followed by a page read after {@link #to}, keeping the newest events. */
    Tail then(EventPage page) {
      List<StreamEvent> all = new ArrayList<>(events);
      all.addAll(page.events());
      int drop = Math.max(0, all.size() - TAIL_EVENTS);
      long start = drop == 0 ? from : all.get(drop - 1).position();
      return new Tail(start, page.next(), List.copyOf(all.subList(drop, all.size())));
    }
  }

  private final Pool pool;
  private final Duration gapTimeout;
  private final AtomicInteger subscribers = new AtomicInteger();
  private final AtomicLong pages = new AtomicLong();
  private final AtomicBoolean watchingHead = new AtomicBoolean();
  private volatile Tail tail = Tail.UNKNOWN;
  private volatile boolean tailInFlight;
  private final int subscribersPerPrincipal;
  private final Map<String, AtomicInteger> byPrincipal = new ConcurrentHashMap<>();

  /**
   * A reader on {@code pool}; each principal (a token's role) may hold up to {@code
   * subscribersPerPrincipal} live subscriptions at once.
   */
  public EventReader(Pool pool, Duration gapTimeout, int subscribersPerPrincipal) {
    this.pool = pool;
    this.gapTimeout = gapTimeout;
    this.subscribersPerPrincipal = subscribersPerPrincipal;
  }

  /** The live subscriptions following the store through this reader (a gauge). */
  public int subscribers() {
    return subscribers.get();
  }

  /** The pages read so far (a counter: what subscriptions and pages cost the store). */
  public long pagesRead() {
    return pages.get();
  }

  /**
   * Starts, once per reader, the one reader that follows the store's tail while anyone subscribes:
   * every {@value #HEAD_MILLIS} ms it reads the events after the last it saw (a page like any
   * other, so gap-safe) and keeps the newest {@value #TAIL_EVENTS}. A subscription that has caught
   * up takes its events from there instead of reading pages itself, so a subscriber costs memory,
   * not queries, whether the store is idle or busy. With no subscriber the tail is forgotten; the
   * next one starts it again from the store's head (a subscription behind that reads pages until it
   * reaches it).
   */
  void watchHead(Vertx vertx) {
    if (watchingHead.compareAndSet(false, true)) {
      vertx.setPeriodic(
          HEAD_MILLIS,
          id -> {
            if (subscribers.get() == 0) {
              tail = Tail.UNKNOWN;
            } else if (!tailInFlight) {
              tailInFlight = true;
              readTail().onComplete(done -> tailInFlight = false);
            }
          });
    }
  }

  /** Reads the tail on, page after page while they are full; failures wait for the next tick. */
  private Future<Void> readTail() {
    Tail t = tail;
    if (t.from() < 0) {
      return pool.query(HEAD)
          .execute()
          .map(
              rows -> {
                long head = rows.iterator().next().getLong("head");
                tail = new Tail(head, head, List.of());
                return null;
              });
    }
    return scan(
            t.to(),
            EventSubscription.PAGE,
            EventFilter.ALL,
            EventSubscription.PAGE,
            new ArrayList<>(),
            0,
            false)
        .compose(
            page -> {
              if (subscribers.get() == 0 || tail != t) {
                return Future.succeededFuture();
              }
              tail = t.then(page);
              return page.events().size() == EventSubscription.PAGE
                  ? readTail()
                  : Future.succeededFuture();
            });
  }

  /** The events the tail holds after {@code position}, when it holds all of them. */
  Optional<EventPage> fromTail(long position, int limit, EventFilter filter) {
    Tail t = tail;
    return t.covers(position) ? Optional.of(t.after(position, limit, filter)) : Optional.empty();
  }

  /** Whether the store may hold an event after {@code position} (or its tail is not known yet). */
  boolean mayHaveAfter(long position) {
    Tail t = tail;
    return t.from() < 0 || t.to() > position;
  }

  /** Counts a subscription of {@code principal} in, unless it holds the most it may. */
  void admit(String principal) {
    AtomicInteger held = byPrincipal.computeIfAbsent(principal, p -> new AtomicInteger());
    if (held.incrementAndGet() > subscribersPerPrincipal) {
      held.decrementAndGet();
      throw new SubscriberLimitException(subscribersPerPrincipal);
    }
    subscribers.incrementAndGet();
  }

  /** Counts a subscription of {@code principal} out. */
  void release(String principal) {
    byPrincipal.get(principal).decrementAndGet();
    subscribers.decrementAndGet();
  }

  /**
   * Up to {@code limit} stored events after {@code after} that match {@code filter}, up to a gap
   * that may still fill. A filtered page reads on past the events it filters out until it has
   * {@code limit} matches, reaches the end or a gap, or has read {@link #MAX_SCAN} positions (then
   * it may hold fewer than {@code limit} events, and its {@code next} lets the caller go on).
   */
  public Future<EventPage> page(long after, int limit, EventFilter filter) {
    // Unfiltered, every row read is returned: one query of the page's size is enough.
    int chunk = filter.matchesAll() ? limit : MAX_LIMIT;
    return scan(after, limit, filter, chunk, new ArrayList<>(), 0, true);
  }

  private Future<EventPage> scan(
      long after,
      int limit,
      EventFilter filter,
      int chunk,
      List<StreamEvent> events,
      int scanned,
      boolean counted) {
    if (counted) {
      pages.incrementAndGet();
    }
    return pool.preparedQuery(PAGE)
        .execute(Tuple.of(after, chunk))
        .compose(
            rows -> {
              long safe = after;
              for (Row r : rows) {
                long position = r.getLong("global_index");
                if (position != safe + 1 && !gapIsPermanent(r)) {
                  return Future.succeededFuture(new EventPage(events, safe));
                }
                safe = position;
                String aggregateType = r.getString("type");
                String type = StreamEvent.simpleType(r.getString("payload_type"));
                if (filter.matches(aggregateType, type)) {
                  events.add(event(r, position, aggregateType, type));
                  if (events.size() == limit) {
                    return Future.succeededFuture(new EventPage(events, position));
                  }
                }
              }
              int read = scanned + rows.size();
              if (rows.size() < chunk || read >= MAX_SCAN) {
                return Future.succeededFuture(new EventPage(events, safe));
              }
              return scan(safe, limit, filter, chunk, events, read, counted);
            });
  }

  private boolean gapIsPermanent(Row afterGap) {
    long age = afterGap.getLong("db_now") - time(afterGap).toEpochMilli();
    return age > gapTimeout.toMillis();
  }

  private static Instant time(Row r) {
    return Instant.parse(r.getString("time_stamp"));
  }

  /** The event of a row of {@link #COLUMNS}. */
  static StreamEvent event(Row r) {
    return event(
        r,
        r.getLong("global_index"),
        r.getString("type"),
        StreamEvent.simpleType(r.getString("payload_type")));
  }

  /** The event's metadata (its command's ID, correlation, trace, the slot that sent it…). */
  static JsonObject metaData(Row r) {
    return json(r.getBuffer("meta_data"));
  }

  private static StreamEvent event(Row r, long position, String aggregateType, String type) {
    JsonObject meta = metaData(r);
    return new StreamEvent(
        r.getString("event_identifier"),
        position,
        aggregateType,
        // The stream ID carries its type's prefix; subscribers see the business ID.
        StreamIds.businessId(r.getString("aggregate_identifier")),
        r.getLong("sequence_number"),
        type,
        time(r),
        meta.getString("commandId"),
        meta.getString("correlationId"),
        meta.getString("traceId"),
        json(r.getBuffer("payload")));
  }

  private static JsonObject json(Buffer bytes) {
    if (bytes == null || bytes.length() == 0) {
      return new JsonObject();
    }
    Object value = io.vertx.core.json.Json.decodeValue(bytes);
    if (value instanceof JsonObject) {
      return (JsonObject) value;
    }
    return new JsonObject().put("value", new String(bytes.getBytes(), StandardCharsets.UTF_8));
  }
}
