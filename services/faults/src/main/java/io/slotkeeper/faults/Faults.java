package io.slotkeeper.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The faults a {@link FaultProxy} injects from the moment they are given to it until the next
 * {@link FaultProxy#inject} or {@link FaultProxy#heal}. Counts start at that moment; a "chunk" is
 * what one read of one socket returned, in either direction. Immutable; build with {@link #none()}
 * and the {@code with…} methods.
 *
 * @param resetConnection the N-th connection accepted is reset (RST) before it reaches the server;
 *     0 for none
 * @param resetChunk the connection that carries the N-th chunk is reset (both sides, RST) instead
 *     of forwarding it; 0 for none
 * @param connectionShare the share (0..1) of new connections reset at once, drawn from the seed
 * @param chunkShare the share (0..1) of chunks whose connection is reset, drawn from the seed
 * @param latency added before every chunk is forwarded
 * @param jitter up to this much more, drawn from the seed for each chunk
 * @param stall all traffic is held (not lost) for this long, then delivered in order
 * @param blackhole all traffic is swallowed for this long; then every connection that lost bytes is
 *     reset, as a peer's keep-alive or timeout would eventually end it
 */
public record Faults(
    int resetConnection,
    int resetChunk,
    double connectionShare,
    double chunkShare,
    Duration latency,
    Duration jitter,
    Duration stall,
    Duration blackhole) {

  public Faults {
    if (resetConnection < 0 || resetChunk < 0) {
      throw new IllegalArgumentException("connection and chunk numbers start at 1 (0: none)");
    }
    if (connectionShare < 0 || connectionShare > 1 || chunkShare < 0 || chunkShare > 1) {
      throw new IllegalArgumentException("shares are between 0 and 1");
    }
    for (Duration d : List.of(latency, jitter, stall, blackhole)) {
      if (d.isNegative()) {
        throw new IllegalArgumentException("negative duration " + d);
      }
    }
  }

  private static final Faults NONE =
      new Faults(0, 0, 0, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO);

  /** No fault: traffic passes unchanged. */
  public static Faults none() {
    return NONE;
  }

  public Faults withResetConnection(int n) {
    return new Faults(
        n, resetChunk, connectionShare, chunkShare, latency, jitter, stall, blackhole);
  }

  public Faults withResetChunk(int n) {
    return new Faults(
        resetConnection, n, connectionShare, chunkShare, latency, jitter, stall, blackhole);
  }

  public Faults withResetShares(double connections, double chunks) {
    return new Faults(
        resetConnection, resetChunk, connections, chunks, latency, jitter, stall, blackhole);
  }

  public Faults withLatency(Duration fixed, Duration upToMore) {
    return new Faults(
        resetConnection,
        resetChunk,
        connectionShare,
        chunkShare,
        fixed,
        upToMore,
        stall,
        blackhole);
  }

  public Faults withStall(Duration d) {
    return new Faults(
        resetConnection, resetChunk, connectionShare, chunkShare, latency, jitter, d, blackhole);
  }

  public Faults withBlackhole(Duration d) {
    return new Faults(
        resetConnection, resetChunk, connectionShare, chunkShare, latency, jitter, stall, d);
  }

  /** Whether these faults change nothing. */
  public boolean isNone() {
    return equals(NONE);
  }

  /** A short description, e.g. {@code reset connection #3, latency 40ms+<20ms}. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    if (resetConnection > 0) {
      parts.add("reset connection #" + resetConnection);
    }
    if (resetChunk > 0) {
      parts.add("reset chunk #" + resetChunk);
    }
    if (connectionShare > 0) {
      parts.add(String.format("reset %.0f%% of connections", connectionShare * 100));
    }
    if (chunkShare > 0) {
      parts.add(String.format("reset %.1f%% of chunks", chunkShare * 100));
    }
    if (!latency.isZero() || !jitter.isZero()) {
      parts.add("latency " + latency.toMillis() + "ms+<" + jitter.toMillis() + "ms");
    }
    if (!stall.isZero()) {
      parts.add("stall " + stall.toMillis() + "ms");
    }
    if (!blackhole.isZero()) {
      parts.add("blackhole " + blackhole.toMillis() + "ms");
    }
    return parts.isEmpty() ? "none" : String.join(", ", parts);
  }
}
