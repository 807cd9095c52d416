package io.slotkeeper.business;

import io.slotkeeper.commands.CommandOutcome;
import io.slotkeeper.commands.WriteModel;
import io.slotkeeper.events.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Sends commands all at once, spread round-robin over write models; tallies the outcomes. */
public final class ConcurrentSend {

  private ConcurrentSend() {}

  /** Outcome kind ("applied", "duplicate" or the exception's simple name) to count. */
  public static Map<String, Integer> sendAll(List<WriteModel> models, List<? extends Command> cmds)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(cmds.size());
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<String>> futures = new ArrayList<>();
      for (int i = 0; i < cmds.size(); i++) {
        WriteModel model = models.get(i % models.size());
        Command cmd = cmds.get(i);
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  CompletableFuture<CommandOutcome<Object>> f = model.commands().send(cmd);
                  try {
                    return f.join().duplicate() ? "duplicate" : "applied";
                  } catch (CompletionException e) {
                    return e.getCause().getClass().getSimpleName();
                  }
                }));
      }
      go.countDown();
      Map<String, Integer> tally = new TreeMap<>();
      for (Future<String> f : futures) {
        tally.merge(f.get(), 1, Integer::sum);
      }
      return tally;
    } finally {
      pool.shutdownNow();
    }
  }
}
