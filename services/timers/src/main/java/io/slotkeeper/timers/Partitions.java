package io.slotkeeper.timers;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The fixed set of shards the schedules are spread over: a schedule belongs to one partition for as
 * long as the count stays the same, by a digest of its name. Each partition is one lease in Redis
 * with its own fencing token; the instances share the partitions, not the schedules.
 *
 * @param count how many partitions ({@code SLOTKEEPER_TIMER_PARTITIONS})
 */
public record Partitions(int count) {

  public Partitions {
    if (count < 1) {
      throw new IllegalArgumentException("at least one partition, not " + count);
    }
  }

  /** The schedule's partition, in {@code [0, count)}. */
  public int of(String schedule) {
    // A digest, not String.hashCode: the same on every JVM and spread evenly over names that
    // differ in their last characters only (job-001, job-002).
    long digest =
        UUID.nameUUIDFromBytes(schedule.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits();
    return (int) Math.floorMod(digest, (long) count);
  }

  /** The name of the partition's lease, e.g. {@code partition:07}. */
  public String leaseName(int partition) {
    return String.format("partition:%02d", partition);
  }

  /**
   * The delay of the partition's first periodic upkeep (the first one runs at once): the partitions
   * spread evenly over one period, so that their lease renewals and ledger reads do not all hit
   * Redis and PostgreSQL in the same millisecond (200 upkeeps in step once overflowed the Redis
   * client's wait queue, renewals failed and leases expired).
   */
  long phase(int partition, long period) {
    return 1 + period * partition / count;
  }
}
