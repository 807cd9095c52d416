package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The service's JSON log line carries the message as a reader sees it, arguments in place. */
class JsonLogLineTest {

  @Test
  void aJsonLineCarriesTheFormattedMessage() throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    LoggerContext context = new LoggerContext();
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      context.setMDCAdapter(new LogbackMDCAdapter());
      context.putProperty("SLOTKEEPER_LOG_FORMAT", "json");
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(getClass().getResource("/logback.xml"));
      context
          .getLogger("io.slotkeeper.platform")
          .atInfo()
          .addKeyValue("job", "daily-report")
          .log("embedded PostgreSQL started at {}", "/data/pg");
    } finally {
      context.stop();
      System.setOut(out);
    }
    String line = captured.toString(StandardCharsets.UTF_8).strip();
    assertThat(line.lines()).hasSize(1);
    JsonObject json = new JsonObject(line);
    assertThat(json.getString("formattedMessage"))
        .isEqualTo("embedded PostgreSQL started at /data/pg");
    assertThat(json.containsKey("message")).as("the template apart: " + line).isFalse();
    assertThat(json.containsKey("arguments")).isFalse();
    assertThat(json.getString("level")).isEqualTo("INFO");
    assertThat(line).contains("daily-report");
  }
}
