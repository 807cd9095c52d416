package io.slotkeeper.app;

import io.slotkeeper.delivery.DeliverySettings;
import io.slotkeeper.delivery.TargetGuard;
import io.slotkeeper.platform.config.ConfigException;
import io.slotkeeper.platform.config.SlotkeeperConfig;
import io.slotkeeper.platform.embedded.EmbeddedServerException;
import io.slotkeeper.scheduler.schedule.job.JobsFileException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/** {@code java -jar slotkeeper.jar}: reads the configuration, starts, stops on SIGTERM. */
public final class Main {

  private static final Logger log = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) {
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    SlotkeeperConfig config;
    try {
      config = SlotkeeperConfig.fromEnvironment();
      // The HTTP targets' settings belong to the delivery module, which checks them.
      TargetGuard.of(DeliverySettings.from(config.httpTargets()).allow(), false);
    } catch (ConfigException | IllegalArgumentException e) {
      System.err.println("slotkeeper: invalid configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    Slotkeeper app;
    try {
      app = Slotkeeper.start(config);
    } catch (EmbeddedServerException | JobsFileException e) {
      System.err.println("slotkeeper: " + e.getMessage());
      System.exit(3);
      return;
    } catch (Exception e) {
      // Any failure ends the process, so that it is restarted: a checked exception thrown
      // unchecked (Vert.x's Future.await does) must not end only the main thread.
      log.error("slotkeeper did not start", e);
      System.exit(1);
      return;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("shutting down");
                  app.close();
                  log.info("stopped");
                },
                "slotkeeper-shutdown"));
  }
}
