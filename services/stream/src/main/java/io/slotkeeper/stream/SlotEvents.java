package io.slotkeeper.stream;

import io.slotkeeper.events.StreamIds;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The events one slot caused: its own (the slot ledger's stream: fired, failed, completed…) and
 * those its handler's commands wrote in other aggregates, which carry the slot's ID in their
 * metadata ({@value #SLOT_METADATA}), with the commands they came from.
 *
 * <p>The handler runs after a fire is recorded and before its completion or failure is, so the
 * events it caused lie between the slot's first and last own events: only those positions are read,
 * by the primary key, and only rows whose metadata holds the slot's ID are kept. A slot whose last
 * word is a fire may still run: its window stays open, up to the bound.
 */
public final class SlotEvents {

  /** The metadata key that names the slot a command was sent for, copied to its events. */
  public static final String SLOT_METADATA = "slot";

  /** Events of each kind (the slot's own, the others') one answer holds at most. */
  public static final int MAX_EVENTS = 1_000;

  /** Positions read at most after the slot's first event in search of the events it caused. */
  public static final long MAX_SCAN = 100_000;

  private static final String OWN =
      EventReader.COLUMNS
          + " FROM domain_event_entry WHERE aggregate_identifier = $1"
          + " ORDER BY sequence_number LIMIT $2";
  // The byte search is a cheap first cut; each row's metadata is then read to confirm.
  private static final String CAUSED =
      EventReader.COLUMNS
          + " FROM domain_event_entry WHERE global_index > $1 AND global_index < $2"
          + " AND aggregate_identifier <> $3 AND position($4::bytea in meta_data) > 0"
          + " ORDER BY global_index LIMIT $5";

  private static final String FIRED = "SlotFired";
  private static final String FIRE_REJECTED = "SlotFireRejected";

  /**
   * What was found, by position. {@code complete}: the slot has finished and its whole window was
   * read within the bounds (a running slot's events are those so far).
   */
  public record Found(List<StreamEvent> events, boolean complete) {

    /**
     * The commands the events came from (their causation IDs), in the order of their first event:
     * each with the aggregate it went to, the position of its first event and its events' types.
     */
    public JsonArray commands() {
      Map<String, JsonObject> byId = new LinkedHashMap<>();
      for (StreamEvent e : events) {
        if (e.causationId() == null) {
          continue;
        }
        byId.computeIfAbsent(
                e.causationId(),
                id ->
                    new JsonObject()
                        .put("commandId", id)
                        .put("aggregateType", e.aggregateType())
                        .put("aggregateId", e.aggregateId())
                        .put("position", e.position())
                        .put("eventTypes", new JsonArray()))
            .getJsonArray("eventTypes")
            .add(e.type());
      }
      return new JsonArray(new ArrayList<>(byId.values()));
    }
  }

  private final Pool pool;

  public SlotEvents(Pool pool) {
    this.pool = pool;
  }

  /** The events of the slot {@code slotId} (its ledger ID) and those it caused. */
  public Future<Found> of(String slotId) {
    String stream = StreamIds.slot(slotId);
    return pool.preparedQuery(OWN)
        .execute(Tuple.of(stream, MAX_EVENTS))
        .compose(
            rows -> {
              List<StreamEvent> own = new ArrayList<>();
              rows.forEach(r -> own.add(EventReader.event(r)));
              if (own.isEmpty()) {
                return Future.succeededFuture(new Found(List.of(), true));
              }
              long from = own.get(0).position();
              StreamEvent last = lastWord(own);
              boolean running = last.type().equals(FIRED);
              long to = running ? Long.MAX_VALUE : last.position();
              long end = Math.min(to, from + MAX_SCAN + 1);
              return pool.preparedQuery(CAUSED)
                  .execute(Tuple.of(from, end, stream, Buffer.buffer(slotId), MAX_EVENTS))
                  .map(
                      caused -> {
                        List<StreamEvent> all = new ArrayList<>(own);
                        int read = 0;
                        for (Row r : caused) {
                          read++;
                          if (slotId.equals(EventReader.metaData(r).getString(SLOT_METADATA))) {
                            all.add(EventReader.event(r));
                          }
                        }
                        all.sort(Comparator.comparingLong(StreamEvent::position));
                        boolean complete =
                            !running && end == to && read < MAX_EVENTS && own.size() < MAX_EVENTS;
                        return new Found(List.copyOf(all), complete);
                      });
            });
  }

  /** The slot's last event that says how its run stands (a rejected fire says nothing of it). */
  private static StreamEvent lastWord(List<StreamEvent> own) {
    for (int i = own.size() - 1; i > 0; i--) {
      if (!own.get(i).type().equals(FIRE_REJECTED)) {
        return own.get(i);
      }
    }
    return own.get(0);
  }
}
