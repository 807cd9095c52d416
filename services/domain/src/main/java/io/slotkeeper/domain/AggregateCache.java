package io.slotkeeper.domain;

import org.axonframework.common.caching.WeakReferenceCache;

/**
 * The aggregate cache of the write side: Axon's weak-reference cache, minus one trap. A
 * create-if-missing handler that decides to do nothing (a release for an unknown SKU, say) leaves
 * an aggregate without an identifier; Axon's caching repository still puts (and, on rollback,
 * removes) it under that null identifier, which the underlying map refuses with a
 * NullPointerException. Such an aggregate has no events, so there is nothing to cache.
 */
final class AggregateCache extends WeakReferenceCache {

  @Override
  public void put(Object key, Object value) {
    if (key != null) {
      super.put(key, value);
    }
  }

  @Override
  public boolean putIfAbsent(Object key, Object value) {
    return key != null && super.putIfAbsent(key, value);
  }

  @Override
  public boolean remove(Object key) {
    return key != null && super.remove(key);
  }
}
