package io.slotkeeper.scheduler.schedule.job;

import java.net.URI;
import java.util.Optional;

/**
 * Whether a schedule may call a URL, checked when a schedule is created or changed (the SSRF guard
 * of the delivery module implements it; the delivery checks the resolved address again).
 */
@FunctionalInterface
public interface TargetCheck {

  /** Any URL (the jobs file, whose targets are checked at delivery only). */
  TargetCheck ANY = url -> Optional.empty();

  /** Why {@code url} is refused, or empty when it is allowed. */
  Optional<String> refusal(URI url);
}
