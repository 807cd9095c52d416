package io.slotkeeper.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AggregateCacheTest {

  @Test
  void keepsEntriesAcrossGarbageCollectionsUnlikeAWeakCache() {
    AggregateCache cache = new AggregateCache(100);
    cache.put("slot-1", new Object());
    // Only the cache refers to the value; a weak cache would lose it here.
    for (int i = 0; i < 3; i++) {
      List<byte[]> garbage = new ArrayList<>();
      for (int j = 0; j < 64; j++) {
        garbage.add(new byte[64 * 1024]);
      }
      garbage.clear();
      System.gc();
    }
    assertTrue(cache.containsKey("slot-1"));
  }

  @Test
  void holdsAtMostItsBound() {
    AggregateCache cache = new AggregateCache(50);
    for (int i = 0; i < 1_000; i++) {
      cache.put("order-" + i, i);
    }
    assertTrue(cache.size() <= 50, "size " + cache.size());
  }

  @Test
  void ignoresNullKeysThatACreateIfMissingNoOpLeaves() {
    AggregateCache cache = new AggregateCache(10);
    cache.put(null, "aggregate without events");
    assertFalse(cache.putIfAbsent(null, "x"));
    assertFalse(cache.remove(null));
    assertNull(cache.get(null));
    assertEquals(0, cache.size());
  }

  @Test
  void putIfAbsentRemoveAndComputeBehaveLikeAMap() {
    AggregateCache cache = new AggregateCache(10);
    Object first = new Object();
    assertTrue(cache.putIfAbsent("sku-1", first));
    assertFalse(cache.putIfAbsent("sku-1", new Object()));
    assertSame(first, cache.get("sku-1"));
    cache.<Integer>computeIfPresent("n", v -> v + 1);
    assertFalse(cache.containsKey("n"));
    cache.put("n", 1);
    cache.<Integer>computeIfPresent("n", v -> v + 1);
    assertEquals(2, (Integer) cache.get("n"));
    assertEquals("made", cache.computeIfAbsent("new", () -> "made"));
    assertTrue(cache.remove("sku-1"));
    assertFalse(cache.remove("sku-1"));
    cache.removeAll();
    assertEquals(0, cache.size());
  }

  @Test
  void refusesListenersAndNonPositiveBounds() {
    assertThrows(
        UnsupportedOperationException.class,
        () -> new AggregateCache(1).registerCacheEntryListener(null));
    assertThrows(IllegalArgumentException.class, () -> new AggregateCache(0));
  }
}
