package io.slotkeeper.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A seed's schedule of faults over a window, for several named proxies: a function of the seed
 * alone, so a failing seed names exactly the faults to inject again. Each proxy gets episodes
 * spread over the window; an episode is one {@link Faults} (a kind drawn from the seed, see {@link
 * #episode}) followed by a heal. At the window's end every proxy is healed.
 *
 * @param seed what the plan was drawn from
 * @param window how long faults are injected
 * @param steps what to inject on which proxy, when (from the window's start), in time order
 */
public record FaultPlan(long seed, Duration window, List<Step> steps) {

  /**
   * At {@code at}, the proxy named {@code proxy} gets {@code faults}, its random choices seeded by
   * {@code seed}.
   */
  public record Step(Duration at, String proxy, Faults faults, long seed) {
    @Override
    public String toString() {
      return "+" + at.toMillis() + "ms " + proxy + ": " + faults;
    }
  }

  /**
   * The plan of {@code seed}: for each of {@code proxies}, one to {@code maxEpisodes} episodes,
   * each in its own share of the window.
   */
  public static FaultPlan random(
      long seed, Duration window, List<String> proxies, int maxEpisodes) {
    List<Step> steps = new ArrayList<>();
    for (int p = 0; p < proxies.size(); p++) {
      String proxy = proxies.get(p);
      Random r = new Random(seed * 1_000_003L + p);
      int episodes = 1 + r.nextInt(Math.max(1, maxEpisodes));
      long share = window.toMillis() / episodes;
      for (int e = 0; e < episodes; e++) {
        long start = e * share + r.nextLong(Math.max(1, share / 3));
        long length = Math.max(50, (share - (start - e * share)) * (3 + r.nextInt(7)) / 10);
        steps.add(
            new Step(
                Duration.ofMillis(start),
                proxy,
                episode(r, Duration.ofMillis(length)),
                r.nextLong()));
        steps.add(new Step(Duration.ofMillis(start + length), proxy, Faults.none(), 0));
      }
    }
    steps.sort(Comparator.comparing(Step::at));
    return new FaultPlan(seed, window, List.copyOf(steps));
  }

  /**
   * One episode's faults: a reset of the N-th connection or chunk, a random share of resets,
   * latency, a stall, a blackhole, or a mix (a chunk reset, the reconnection reset too, latency).
   */
  static Faults episode(Random r, Duration length) {
    Faults none = Faults.none();
    switch (r.nextInt(7)) {
      case 0:
        return none.withResetConnection(1 + r.nextInt(3)).withResetChunk(1 + r.nextInt(10));
      case 1:
        return none.withResetChunk(1 + r.nextInt(40));
      case 2:
        return none.withResetShares(r.nextDouble() * 0.3, r.nextDouble() * 0.05);
      case 3:
        return none.withLatency(ms(5 + r.nextInt(150)), ms(r.nextInt(100)));
      case 4:
        return none.withStall(length.multipliedBy(5 + r.nextInt(6)).dividedBy(10));
      case 5:
        return none.withBlackhole(length);
      default:
        return none.withResetChunk(1 + r.nextInt(20))
            .withResetConnection(1 + r.nextInt(2))
            .withLatency(ms(r.nextInt(30)), ms(r.nextInt(30)));
    }
  }

  /**
   * Injects the plan into the proxies (by name) on the calling thread, then heals them all and
   * waits (up to 30 s) until each is healed; returns whether all were.
   */
  public boolean play(List<FaultProxy> proxies) throws InterruptedException {
    Map<String, FaultProxy> byName =
        proxies.stream().collect(Collectors.toMap(FaultProxy::name, Function.identity()));
    long start = System.nanoTime();
    try {
      for (Step s : steps) {
        sleepUntil(start + s.at().toNanos());
        FaultProxy proxy = byName.get(s.proxy());
        if (proxy != null) {
          proxy.inject(s.faults(), s.seed());
        }
      }
      sleepUntil(start + window.toNanos());
    } finally {
      proxies.forEach(FaultProxy::heal);
    }
    boolean healed = true;
    for (FaultProxy p : proxies) {
      healed &= p.awaitHealed(Duration.ofSeconds(30));
    }
    return healed;
  }

  /** The seed and its steps, one a line. */
  public String describe() {
    StringBuilder out = new StringBuilder("seed " + seed + ", window " + window.toMillis() + "ms:");
    steps.stream().filter(s -> !s.faults().isNone()).forEach(s -> out.append("\n  ").append(s));
    return out.toString();
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long left = nanoTime - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    }
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
