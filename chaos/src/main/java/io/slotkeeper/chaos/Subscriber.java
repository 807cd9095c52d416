package io.slotkeeper.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An SSE client of {@code GET /v1/events/stream} as a browser's EventSource behaves: after every
 * error (instance killed, paused, connection reset) it reconnects, to the next instance, with
 * {@code Last-Event-ID} set to the last position it saw. A read that stays silent for longer than
 * the keep-alive interval (a paused instance) counts as an error.
 */
final class Subscriber {

  private final String name;
  private final List<Instance> instances;
  private final String token;
  private final List<Long> received = new ArrayList<>();
  private volatile long last;
  final AtomicLong reconnects = new AtomicLong();
  private volatile boolean stopping;
  private volatile HttpURLConnection current;
  private Thread thread;

  Subscriber(String name, List<Instance> instances, String token) {
    this.name = name;
    this.instances = instances;
    this.token = token;
  }

  String name() {
    return name;
  }

  void start() {
    thread = new Thread(this::run, "chaos-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  void stop() throws InterruptedException {
    stopping = true;
    HttpURLConnection c = current;
    if (c != null) {
      c.disconnect();
    }
    thread.join(10_000);
  }

  long last() {
    return last;
  }

  /** Every position received, in the order received (duplicates included). */
  synchronized List<Long> received() {
    return new ArrayList<>(received);
  }

  private synchronized void record(long position) {
    received.add(position);
    if (position > last) {
      last = position;
    }
  }

  private void run() {
    int next = name.hashCode() & 1;
    while (!stopping) {
      Instance target = instances.get(next++ % instances.size());
      try {
        follow(target);
      } catch (IOException | RuntimeException e) {
        // reconnect below
      }
      if (!stopping) {
        reconnects.incrementAndGet();
        Chaos.sleep(300);
      }
    }
  }

  private void follow(Instance target) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create(target.base() + "/v1/events/stream").toURL().openConnection();
    c.setConnectTimeout(2000);
    c.setReadTimeout(20_000); // keep-alives come every 15 s
    c.setRequestProperty("Authorization", "Bearer " + token);
    c.setRequestProperty("Accept", "text/event-stream");
    c.setRequestProperty("Last-Event-ID", Long.toString(last));
    current = c;
    try {
      if (c.getResponseCode() != 200) {
        return;
      }
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        Long id = null;
        while (!stopping && (line = in.readLine()) != null) {
          if (line.startsWith("id: ")) {
            id = Long.parseLong(line.substring(4).trim());
          } else if (line.isEmpty() && id != null) {
            record(id); // an event counts once its blank line arrived, as in EventSource
            id = null;
          }
        }
      }
    } finally {
      c.disconnect();
      current = null;
    }
  }
}
