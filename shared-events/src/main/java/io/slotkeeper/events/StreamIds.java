package io.slotkeeper.events;

/**
 * The one place that turns a business ID into the ID of its aggregate's event stream: Axon's
 * aggregate identifier, the key of {@code domain_event_entry}, of command routing and of the
 * aggregate cache. It is the aggregate type in lower case, a colon and the business ID ({@code
 * order:X}, {@code inventory:X}, {@code slot:<uuid>}).
 *
 * <p>Why: business IDs of different types share one value space (clients choose order IDs and SKUs,
 * any printable ASCII), while Axon keys a stream by the identifier alone. Unprefixed, an order and
 * a SKU named alike would share a stream: the second aggregate would load the first one's events or
 * collide on its sequence numbers. Events, commands, read tables and the public APIs keep the plain
 * business ID; only the store's key carries the prefix.
 */
public final class StreamIds {

  /** Prefix of order streams. */
  public static final String ORDER = "order:";

  /** Prefix of inventory streams (one per SKU). */
  public static final String INVENTORY = "inventory:";

  /** Prefix of schedule streams (one per schedule name). */
  public static final String SCHEDULE = "schedule:";

  /** Prefix of slot ledger streams. */
  public static final String SLOT = "slot:";

  private StreamIds() {}

  /** The stream of an order. */
  public static String order(String orderId) {
    return of(ORDER, orderId);
  }

  /** The stream of a SKU's inventory. */
  public static String inventory(String sku) {
    return of(INVENTORY, sku);
  }

  /** The stream of a schedule. */
  public static String schedule(String name) {
    return of(SCHEDULE, name);
  }

  /** The stream of a slot (its ID from {@link DeterministicIds#forSlot}). */
  public static String slot(String slotId) {
    return of(SLOT, slotId);
  }

  /**
   * The business ID of a stream ID: what follows the prefix (prefixes hold no other colon, so the
   * first one ends it). Null stays null (events of no aggregate).
   */
  public static String businessId(String streamId) {
    if (streamId == null) {
      return null;
    }
    int colon = streamId.indexOf(':');
    return colon < 0 ? streamId : streamId.substring(colon + 1);
  }

  private static String of(String prefix, String businessId) {
    // A null ID stays null: Axon then reports the missing identifier, and commands validate it.
    return businessId == null ? null : prefix + businessId;
  }
}
