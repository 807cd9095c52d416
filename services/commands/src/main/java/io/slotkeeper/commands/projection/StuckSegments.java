package io.slotkeeper.commands.projection;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.axonframework.eventhandling.Segment;

/**
 * Which segments do not advance, from one reading of the token table: those failing on this
 * instance ({@link ProjectionFailures}, forgotten here once their segment's position passes the
 * failed event), then those no instance has held for {@link StuckSegment#UNCLAIMED_AFTER}.
 */
final class StuckSegments {

  private record Key(String processor, int segment) {}

  private final ProjectionFailures failures;
  private final Map<Key, Instant> unclaimedSince = new ConcurrentHashMap<>();

  StuckSegments(ProjectionFailures failures) {
    this.failures = failures;
  }

  /**
   * The stuck segments of the named processors, given their segments now (positions as fresh as
   * known).
   */
  List<StuckSegment> update(List<TokenTable.Segment> segments, Set<String> names, Instant now) {
    for (TokenTable.Segment s : segments) {
      failures.clearPassed(s.processor(), axonSegment(segments, s), s.position());
    }
    List<StuckSegment> found = new ArrayList<>();
    Set<Key> failing = new HashSet<>();
    for (ProjectionFailures.Failure f : failures.current()) {
      int segment = segmentOf(segments, f);
      failing.add(new Key(f.processor(), segment));
      found.add(
          new StuckSegment(
              f.processor(),
              segment,
              StuckSegment.Reason.FAILING,
              f.position(),
              f.error(),
              f.since(),
              f.attempts()));
    }
    Set<Key> seen = new HashSet<>();
    for (TokenTable.Segment s : segments) {
      Key key = new Key(s.processor(), s.segment());
      seen.add(key);
      if (s.claimed() || !names.contains(s.processor())) {
        unclaimedSince.remove(key);
        continue;
      }
      Instant since = unclaimedSince.computeIfAbsent(key, k -> now);
      if (!failing.contains(key) && since.plus(StuckSegment.UNCLAIMED_AFTER).isBefore(now)) {
        String error =
            "no instance holds this segment" + (s.owner() == null ? "" : " (claim expired)");
        found.add(
            new StuckSegment(
                s.processor(),
                s.segment(),
                StuckSegment.Reason.UNCLAIMED,
                s.position(),
                error,
                since,
                0));
      }
    }
    unclaimedSince.keySet().retainAll(seen);
    return List.copyOf(found);
  }

  /** The failure's segment among the processor's stored segments; -1 when none matches. */
  private static int segmentOf(List<TokenTable.Segment> segments, ProjectionFailures.Failure f) {
    for (TokenTable.Segment s : segments) {
      if (s.processor().equals(f.processor()) && f.in(axonSegment(segments, s))) {
        return s.segment();
      }
    }
    return -1;
  }

  /** Axon's segment (ID and mask) of a stored segment, from its processor's segment IDs. */
  private static Segment axonSegment(List<TokenTable.Segment> segments, TokenTable.Segment s) {
    int[] ids =
        segments.stream()
            .filter(o -> o.processor().equals(s.processor()))
            .mapToInt(TokenTable.Segment::segment)
            .toArray();
    return Segment.computeSegment(s.segment(), ids);
  }
}
