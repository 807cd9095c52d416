package io.slotkeeper.timers;

import java.time.Instant;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The structured fields of a slot's log line (job, slot, nominal, instance, fencing token), as
 * key-value pairs: fields in JSON logs, {@code key=value} in text logs.
 */
final class SlotLog {

  private SlotLog() {}

  static LoggingEventBuilder line(
      LoggingEventBuilder b,
      String job,
      String slotId,
      Instant nominal,
      String instanceId,
      long fencingToken) {
    return b.addKeyValue("job", job)
        .addKeyValue("slot", slotId)
        .addKeyValue("nominal", String.valueOf(nominal))
        .addKeyValue("instance", instanceId)
        .addKeyValue("fencingToken", fencingToken);
  }
}
