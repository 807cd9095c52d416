package io.slotkeeper.bench;

import io.slotkeeper.testing.TestInfra;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The machine the figures were measured on. */
final class Machine {

  private Machine() {}

  static JsonObject describe(Bench bench) {
    String pg;
    try {
      pg = Bench.column(TestInfra.postgresServer(), "SHOW server_version").get(0);
    } catch (RuntimeException e) {
      pg = "unknown (" + e.getMessage() + ")";
    }
    return new JsonObject()
        .put("nproc", Runtime.getRuntime().availableProcessors())
        .put("cpu", procLine("/proc/cpuinfo", "model name"))
        .put("memory", memory())
        .put(
            "java",
            System.getProperty("java.vm.name")
                + " "
                + System.getProperty("java.runtime.version")
                + " ("
                + System.getProperty("java.vendor")
                + ")")
        .put("postgres", "PostgreSQL " + pg)
        .put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"))
        .put("redis", Bench.redis().toString());
  }

  private static String memory() {
    String kb = procLine("/proc/meminfo", "MemTotal").replaceAll("[^0-9]", "");
    return kb.isEmpty()
        ? "unknown memory"
        : String.format("%.1f GiB", Long.parseLong(kb) / 1048576.0);
  }

  private static String procLine(String file, String key) {
    try {
      List<String> lines = Files.readAllLines(Path.of(file));
      for (String line : lines) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return "unknown";
  }
}
