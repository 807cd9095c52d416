package io.slotkeeper.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 in front of one server (PostgreSQL, Redis) that injects {@link Faults}:
 * it resets the N-th or a random share of connections or chunks, adds latency, stalls traffic or
 * swallows it (a blackhole). Whatever speaks to the server through it is covered alike: JDBC
 * (HikariCP, Axon's write side), the Vert.x PostgreSQL client, the Vert.x Redis client.
 *
 * <p>Every random choice (shares, jitter) comes from one {@code java.util.Random} seeded by {@link
 * #inject}, drawn in the order the proxy sees connections and chunks: a seed reproduces its faults
 * as closely as the order of the network's packets allows. Bytes are never altered or reordered: a
 * chunk is forwarded whole, late, or not at all (and then its connection is reset), so a client
 * sees what a real network and a real server can do to it, never a corrupt protocol.
 *
 * <p>Plain blocking sockets, two threads per connection: a test's few dozen connections, not a
 * production proxy.
 */
public final class FaultProxy implements AutoCloseable {

  /** Counters since the proxy started; {@code held} is the number of chunks waiting right now. */
  public record Stats(
      long connections, long chunks, long resets, long dropped, long delayed, int open, int held) {}

  private final String name;
  private final InetSocketAddress upstream;
  private final ServerSocket server;
  private final ExecutorService threads;
  private final ScheduledExecutorService timer;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();

  // The fault state: guarded by lock, which is also what held chunks wait on.
  private final Object lock = new Object();
  private Faults faults = Faults.none();
  private Random random = new Random(0);
  private long generation;
  private long connectionsSince;
  private long chunksSince;
  private long stallUntil;
  private long blackholeUntil;
  private int held;

  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong chunks = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong delayed = new AtomicLong();
  private volatile boolean closed;

  private FaultProxy(String name, InetSocketAddress upstream, ServerSocket server) {
    this.name = name;
    this.upstream = upstream;
    this.server = server;
    AtomicInteger n = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            r -> daemon(r, "fault-proxy-" + name + "-" + n.incrementAndGet()));
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, name + "-timer"));
  }

  /**
   * Starts a proxy named {@code name} (for messages) on a free port of 127.0.0.1, forwarding to
   * {@code host:port}, without faults.
   */
  public static FaultProxy start(String name, String host, int port) {
    try {
      ServerSocket server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
      FaultProxy proxy = new FaultProxy(name, new InetSocketAddress(host, port), server);
      proxy.threads.execute(proxy::acceptLoop);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("fault proxy " + name + ": cannot listen", e);
    }
  }

  public String name() {
    return name;
  }

  /** The host clients connect to instead of the server's. */
  public String host() {
    return server.getInetAddress().getHostAddress();
  }

  /** The port clients connect to instead of the server's. */
  public int port() {
    return server.getLocalPort();
  }

  /**
   * Replaces the active faults with {@code next}; its counts, stall and blackhole start now, its
   * random choices come from {@code seed}. A blackhole in progress ends first (its connections are
   * reset); held chunks are released to wait for the new faults' delay, if any.
   */
  public void inject(Faults next, long seed) {
    long now = System.nanoTime();
    long gen;
    synchronized (lock) {
      faults = next;
      random = new Random(seed);
      gen = ++generation;
      connectionsSince = 0;
      chunksSince = 0;
      stallUntil = next.stall().isZero() ? 0 : now + next.stall().toNanos();
      blackholeUntil = next.blackhole().isZero() ? 0 : now + next.blackhole().toNanos();
      lock.notifyAll();
    }
    resetLinksThatLostData();
    if (!next.blackhole().isZero()) {
      timer.schedule(
          () -> {
            if (generation(gen)) {
              resetLinksThatLostData();
            }
          },
          next.blackhole().toNanos(),
          TimeUnit.NANOSECONDS);
    }
  }

  /** Ends every fault now: held chunks are delivered, connections a blackhole cut are reset. */
  public void heal() {
    inject(Faults.none(), 0);
  }

  /** The active faults. */
  public Faults faults() {
    synchronized (lock) {
      return faults;
    }
  }

  /**
   * Waits until the proxy is healed, no chunk is held any more and the server accepts a connection;
   * false if that takes longer than {@code timeout}.
   */
  public boolean awaitHealed(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      boolean quiet;
      synchronized (lock) {
        quiet = faults.isNone() && held == 0;
      }
      if (quiet && serverAnswers()) {
        return true;
      }
      sleep(20);
    }
    return false;
  }

  public Stats stats() {
    synchronized (lock) {
      return new Stats(
          connections.get(),
          chunks.get(),
          resets.get(),
          dropped.get(),
          delayed.get(),
          links.size(),
          held);
    }
  }

  /** Stops listening and resets every connection. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    links.forEach(Link::reset);
    synchronized (lock) {
      lock.notifyAll();
    }
    threads.shutdownNow();
    timer.shutdownNow();
  }

  @Override
  public String toString() {
    return name + " proxy 127.0.0.1:" + port() + " -> " + upstream;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      connections.incrementAndGet();
      boolean reset;
      synchronized (lock) {
        connectionsSince++;
        reset =
            faults.resetConnection() == connectionsSince
                || (faults.connectionShare() > 0 && random.nextDouble() < faults.connectionShare());
      }
      if (reset) {
        resets.incrementAndGet();
        abort(client);
      } else {
        threads.execute(() -> connect(client));
      }
    }
  }

  private void connect(Socket client) {
    Socket server = new Socket();
    try {
      server.connect(upstream, 5_000);
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
    } catch (IOException e) {
      abort(client);
      abort(server);
      return;
    }
    Link link = new Link(client, server);
    links.add(link);
    if (closed) {
      link.reset();
      return;
    }
    threads.execute(() -> pump(link, client, server));
    pump(link, server, client);
  }

  /** Forwards one direction of a connection, chunk by chunk, as the faults decide. */
  private void pump(Link link, Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        long[] verdict = verdict(link);
        if (verdict == null) {
          link.reset();
          return;
        }
        if (verdict.length == 0) {
          continue; // swallowed by a blackhole
        }
        hold(verdict[0], verdict[1]);
        out.write(buffer, 0, n);
        out.flush();
      }
      link.close();
    } catch (IOException e) {
      link.close();
    }
  }

  /**
   * What happens to the next chunk of {@code link}: null to reset its connection, an empty array to
   * swallow it, else {deliver-not-before (nanoTime), generation}.
   */
  private long[] verdict(Link link) {
    chunks.incrementAndGet();
    long now = System.nanoTime();
    synchronized (lock) {
      chunksSince++;
      if (now < blackholeUntil) {
        dropped.incrementAndGet();
        link.lostData = true;
        return new long[0];
      }
      if (faults.resetChunk() == chunksSince
          || (faults.chunkShare() > 0 && random.nextDouble() < faults.chunkShare())) {
        resets.incrementAndGet();
        return null;
      }
      long delay = faults.latency().toNanos();
      if (!faults.jitter().isZero()) {
        delay += random.nextLong(faults.jitter().toNanos());
      }
      long until = Math.max(now + delay, stallUntil);
      if (until > now) {
        delayed.incrementAndGet();
      }
      return new long[] {until, generation};
    }
  }

  /** Holds a chunk until {@code until}, or until the faults change (then it goes at once). */
  private void hold(long until, long gen) {
    synchronized (lock) {
      held++;
      try {
        long left;
        while (!closed && generation == gen && (left = until - System.nanoTime()) > 0) {
          lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        held--;
      }
    }
  }

  private boolean generation(long gen) {
    synchronized (lock) {
      return generation == gen;
    }
  }

  private void resetLinksThatLostData() {
    for (Link l : links) {
      if (l.lostData) {
        resets.incrementAndGet();
        l.reset();
      }
    }
  }

  private boolean serverAnswers() {
    try (Socket probe = new Socket()) {
      probe.connect(upstream, 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Closes with an RST (linger 0), as a crashed peer or a middlebox dropping state would. */
  private static void abort(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // not connected: close anyway
    }
    try {
      s.close();
    } catch (IOException e) {
      // closed anyway
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One proxied connection: the client's socket and the server's. */
  private final class Link {
    final Socket client;
    final Socket server;
    volatile boolean lostData;

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    /** Both sides get an RST: the client sees "connection reset", the server a dead peer. */
    void reset() {
      links.remove(this);
      abort(client);
      abort(server);
    }

    /** Both sides get a FIN (one side ended the conversation). */
    void close() {
      links.remove(this);
      try {
        client.close();
        server.close();
      } catch (IOException e) {
        abort(server);
      }
    }
  }
}
