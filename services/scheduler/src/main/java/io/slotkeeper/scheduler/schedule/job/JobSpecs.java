package io.slotkeeper.scheduler.schedule.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.slotkeeper.events.schedules.ScheduleDefinition;
import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.DstPolicy;
import io.slotkeeper.scheduler.schedule.IntervalSchedule;
import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPolicy;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy;
import io.slotkeeper.scheduler.schedule.policy.RetryPolicy;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one reading of a job's fields, shared by the jobs file (YAML) and the API's schedules (JSON
 * bodies): every bad field is named with its problem, all of them at once, and a job is built only
 * when there is none. Also the two-way mapping between a {@link JobDefinition} (what the timers
 * run) and a {@link ScheduleDefinition} (what the schedule's events store).
 */
public final class JobSpecs {

  /** The fields of a job. */
  public static final Set<String> JOB_FIELDS =
      Set.of(
          "name",
          "schedule",
          "zone",
          "enabled",
          "catchUp",
          "overlap",
          "dst",
          "retry",
          "leaseTtl",
          "params",
          "handler",
          "target");

  /** The fields of a job's HTTP target. */
  public static final Set<String> TARGET_FIELDS =
      Set.of("type", "url", "method", "headers", "body", "timeout", "secretRef", "maxPerSecond");

  // Set by the delivery on every attempt (or by the HTTP client): a target may not set them.
  private static final Set<String> RESERVED_HEADERS =
      Set.of("idempotency-key", "host", "content-length", "transfer-encoding", "connection");
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}]*)}}");
  private static final Pattern SECRET_REF = Pattern.compile("[A-Z0-9_]{1,64}");

  /** The shortest interval the API accepts (the jobs file allows less, for tests). */
  public static final Duration MIN_API_INTERVAL = Duration.ofSeconds(1);

  private static final ObjectMapper JSON =
      new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL);

  /**
   * Limits beyond the fields' own: the handlers this build has (null: any), the longest catch-up
   * window (the slot ledger's retention: older slots are gone, so catch-up cannot tell whether they
   * ran), the shortest interval, and the URLs a target may call (the SSRF guard).
   */
  public record Rules(
      Set<String> handlers, Duration maxCatchUpWindow, Duration minInterval, TargetCheck targets) {

    /**
     * The jobs file's rules: any handler, any window, intervals down to a millisecond, any target
     * URL (the operator wrote the file; the delivery still checks the address it connects to).
     */
    public static final Rules FILE = new Rules(null, null, Duration.ofMillis(1));

    /** Rules that accept any target URL. */
    public Rules(Set<String> handlers, Duration maxCatchUpWindow, Duration minInterval) {
      this(handlers, maxCatchUpWindow, minInterval, TargetCheck.ANY);
    }
  }

  private JobSpecs() {}

  /**
   * Reads one job; every problem goes to {@code errors} under {@code prefix + field}. Returns the
   * job, or empty when any field is bad.
   */
  public static Optional<JobDefinition> read(
      JsonNode node, String prefix, Rules rules, Map<String, String> errors) {
    int before = errors.size();
    if (node == null || !node.isObject()) {
      errors.put(prefix.isEmpty() ? "(body)" : strip(prefix), "must be a mapping of job fields");
      return Optional.empty();
    }
    Fields f = new Fields(prefix, node, errors);
    f.allowOnly(JOB_FIELDS);
    String name = f.text("name", null);
    if (name == null || name.isBlank()) {
      f.error("name", "missing");
    }
    ZoneId zone = f.zone("zone");
    Fields dstFields = f.object("dst", Set.of("gap", "overlap"));
    DstPolicy dst =
        new DstPolicy(
            dstFields.enumValue("gap", DstPolicy.Gap.class, DstPolicy.DEFAULT.gap()),
            dstFields.enumValue("overlap", DstPolicy.Overlap.class, DstPolicy.DEFAULT.overlap()));
    Schedule schedule = f.schedule(zone, dst, rules.minInterval());
    Fields catchUp = f.object("catchUp", Set.of("policy", "window"));
    CatchUpPolicy catchUpPolicy =
        catchUp.enumValue("policy", CatchUpPolicy.class, CatchUpPolicy.LATEST);
    Duration window =
        catchUp.duration("window", JobDefinition.DEFAULT_CATCH_UP_WINDOW, Duration.ZERO);
    if (window != null
        && rules.maxCatchUpWindow() != null
        && window.compareTo(rules.maxCatchUpWindow()) > 0) {
      catchUp.error(
          "window",
          "must be at most "
              + rules.maxCatchUpWindow()
              + " (the slot ledger's retention), got "
              + window);
    }
    Fields retry =
        f.object("retry", Set.of("maxAttempts", "initialBackoff", "multiplier", "maxBackoff"));
    RetryPolicy defaults = RetryPolicy.DEFAULT;
    int maxAttempts = retry.intValue("maxAttempts", defaults.maxAttempts(), 1, 100);
    Duration initialBackoff =
        retry.duration("initialBackoff", defaults.initialBackoff(), Duration.ZERO);
    double multiplier = retry.doubleValue("multiplier", defaults.multiplier(), 1.0, 100.0);
    Duration maxBackoff = retry.duration("maxBackoff", defaults.maxBackoff(), Duration.ZERO);
    boolean enabled = f.bool("enabled", true);
    OverlapPolicy overlap = f.enumValue("overlap", OverlapPolicy.class, OverlapPolicy.SKIP);
    Duration leaseTtl =
        f.duration("leaseTtl", JobDefinition.DEFAULT_LEASE_TTL, Duration.ofSeconds(1));
    Map<String, String> params = f.params("params");
    HttpTarget target = f.target("target", rules.targets());
    String handler = f.text("handler", node.hasNonNull("target") ? HttpTarget.HANDLER : name);
    if (node.hasNonNull("target") && !HttpTarget.HANDLER.equals(handler)) {
      f.error("handler", "must be absent or '" + HttpTarget.HANDLER + "' with a target");
    } else if (!node.hasNonNull("target") && HttpTarget.HANDLER.equals(handler)) {
      f.error("target", "missing (handler '" + HttpTarget.HANDLER + "' calls a target)");
    } else if (handler != null && rules.handlers() != null && !rules.handlers().contains(handler)) {
      f.error(
          node.has("handler") ? "handler" : "name",
          "no handler named '"
              + handler
              + "' in this build (known: "
              + String.join(", ", sorted(rules.handlers()))
              + ")");
    }
    if (errors.size() > before) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new JobDefinition(
              name,
              schedule,
              zone,
              enabled,
              catchUpPolicy,
              window,
              overlap,
              dst,
              new RetryPolicy(maxAttempts, initialBackoff, multiplier, maxBackoff),
              leaseTtl,
              params,
              handler,
              target));
    } catch (IllegalArgumentException e) {
      errors.put(prefix.isEmpty() ? "(body)" : strip(prefix), e.getMessage());
      return Optional.empty();
    }
  }

  /** The stored form of a job: every default written out, so equal jobs store equal values. */
  public static ScheduleDefinition definitionOf(JobDefinition job) {
    ScheduleDefinition.Timing timing;
    if (job.schedule() instanceof CronSchedule) {
      timing =
          new ScheduleDefinition.Timing(null, null, ((CronSchedule) job.schedule()).expression());
    } else {
      IntervalSchedule interval = (IntervalSchedule) job.schedule();
      timing =
          new ScheduleDefinition.Timing(
              interval.interval().toString(), interval.anchor().toString(), null);
    }
    RetryPolicy r = job.retryPolicy();
    return new ScheduleDefinition(
        job.name(),
        timing,
        job.zone().getId(),
        job.enabled(),
        new ScheduleDefinition.CatchUp(job.catchUpPolicy().name(), job.catchUpWindow().toString()),
        job.overlapPolicy().name(),
        new ScheduleDefinition.Dst(job.dstPolicy().gap().name(), job.dstPolicy().overlap().name()),
        new ScheduleDefinition.Retry(
            r.maxAttempts(),
            r.initialBackoff().toString(),
            r.multiplier(),
            r.maxBackoff().toString()),
        job.leaseTtl().toString(),
        job.handler(),
        job.params(),
        targetOf(job.target()));
  }

  private static ScheduleDefinition.Target targetOf(HttpTarget t) {
    return t == null
        ? null
        : new ScheduleDefinition.Target(
            HttpTarget.TYPE,
            t.url().toString(),
            t.method(),
            t.headers(),
            t.body(),
            t.timeout().toString(),
            t.secretRef(),
            t.maxPerSecond() == 0 ? null : t.maxPerSecond());
  }

  /** The stored definition as JSON (the API's and the read table's form). */
  public static ObjectNode json(ScheduleDefinition definition) {
    return JSON.valueToTree(definition);
  }

  /**
   * The job a stored definition runs. Stored definitions passed {@link #read} when they were
   * written; one that no longer does (a handler removed from the build) is an {@link
   * IllegalStateException} naming the fields.
   */
  public static JobDefinition jobOf(ScheduleDefinition definition) {
    Map<String, String> errors = new LinkedHashMap<>();
    return read(json(definition), "", Rules.FILE, errors)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "stored schedule " + definition.name() + " is not valid: " + errors));
  }

  private static String strip(String prefix) {
    return prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
  }

  private static List<String> sorted(Set<String> names) {
    List<String> out = new ArrayList<>(names);
    out.sort(null);
    return out;
  }

  /** Typed reading of one mapping; a bad field is recorded and its fallback (or null) returned. */
  private static final class Fields {
    private final String prefix;
    private final JsonNode node;
    private final Map<String, String> errors;

    Fields(String prefix, JsonNode node, Map<String, String> errors) {
      this.prefix = prefix;
      this.node = node;
      this.errors = errors;
    }

    void error(String field, String problem) {
      String path = strip(prefix + field);
      errors.putIfAbsent(path.isEmpty() ? "(top level)" : path, problem);
    }

    void allowOnly(Set<String> allowed) {
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!allowed.contains(key)) {
          error(key, "unknown field (known: " + String.join(", ", sorted(allowed)) + ")");
        }
      }
    }

    /** The nested mapping {@code field} (an empty one if absent or bad). */
    Fields object(String field, Set<String> allowed) {
      JsonNode child = node.get(field);
      if (child == null || child.isNull()) {
        return new Fields(prefix + field + ".", JSON.createObjectNode(), errors);
      }
      if (!child.isObject()) {
        error(field, "must be a mapping");
        return new Fields(prefix + field + ".", JSON.createObjectNode(), errors);
      }
      Fields nested = new Fields(prefix + field + ".", child, errors);
      nested.allowOnly(allowed);
      return nested;
    }

    private JsonNode scalar(String field) {
      JsonNode v = node.get(field);
      if (v == null || v.isNull()) {
        return null;
      }
      if (!v.isValueNode()) {
        error(
            field,
            "must be a single value, not a " + v.getNodeType().name().toLowerCase(Locale.ROOT));
        return null;
      }
      return v;
    }

    String text(String field, String fallback) {
      JsonNode v = scalar(field);
      if (v == null) {
        return fallback;
      }
      if (!v.isTextual()) {
        error(field, "must be text, got " + v);
        return fallback;
      }
      return v.textValue().trim();
    }

    boolean bool(String field, boolean fallback) {
      JsonNode v = scalar(field);
      if (v == null) {
        return fallback;
      }
      if (!v.isBoolean()) {
        error(field, "must be true or false, got " + v);
        return fallback;
      }
      return v.booleanValue();
    }

    int intValue(String field, int fallback, int min, int max) {
      JsonNode v = number(field, true);
      return v == null ? fallback : (int) inRange(field, v, min, max, fallback);
    }

    double doubleValue(String field, double fallback, double min, double max) {
      JsonNode v = number(field, false);
      return v == null ? fallback : inRange(field, v, min, max, fallback);
    }

    private JsonNode number(String field, boolean whole) {
      JsonNode v = scalar(field);
      if (v != null && (whole ? !v.isIntegralNumber() || !v.canConvertToInt() : !v.isNumber())) {
        error(field, "must be a " + (whole ? "whole number" : "number") + ", got " + v);
        return null;
      }
      return v;
    }

    private double inRange(String field, JsonNode v, double min, double max, double fallback) {
      double d = v.doubleValue();
      if (!(d >= min && d <= max)) {
        String range =
            v.isIntegralNumber() ? (long) min + " and " + (long) max : min + " and " + max;
        error(field, "must be between " + range + ", got " + v);
        return fallback;
      }
      return d;
    }

    Duration duration(String field, Duration fallback, Duration min) {
      String v = text(field, null);
      if (v == null) {
        return fallback;
      }
      Duration d;
      try {
        d = Duration.parse(v);
      } catch (DateTimeParseException e) {
        error(field, "must be an ISO-8601 duration such as PT10S, got '" + v + "'");
        return fallback;
      }
      if (d.compareTo(min) < 0) {
        error(field, "must be at least " + min + ", got " + d);
        return fallback;
      }
      return d;
    }

    <E extends Enum<E>> E enumValue(String field, Class<E> type, E fallback) {
      String v = text(field, null);
      if (v == null) {
        return fallback;
      }
      try {
        return Enum.valueOf(type, v);
      } catch (IllegalArgumentException e) {
        String known =
            String.join(
                ", ",
                Arrays.stream(type.getEnumConstants()).map(Enum::name).toArray(String[]::new));
        error(field, "unknown value '" + v + "' (one of " + known + ")");
        return fallback;
      }
    }

    ZoneId zone(String field) {
      String v = text(field, null);
      if (v == null) {
        return ZoneOffset.UTC;
      }
      try {
        return ZoneId.of(v);
      } catch (DateTimeException e) {
        error(field, "unknown time zone '" + v + "'");
        return ZoneOffset.UTC;
      }
    }

    Schedule schedule(ZoneId zone, DstPolicy dst, Duration minInterval) {
      if (node.get("schedule") == null) {
        error("schedule", "missing (give cron or every)");
        return null;
      }
      Fields s = object("schedule", Set.of("cron", "every", "anchor"));
      String cron = s.text("cron", null);
      boolean every = s.node.has("every");
      if ((cron == null) == !every) {
        error("schedule", "give exactly one of cron, every");
        return null;
      }
      if (cron != null) {
        if (s.node.has("anchor")) {
          s.error("anchor", "only applies to every");
          return null;
        }
        try {
          return new CronSchedule(cron, zone, dst);
        } catch (IllegalArgumentException e) {
          s.error("cron", e.getMessage());
          return null;
        }
      }
      Duration interval = s.duration("every", null, minInterval);
      if (interval == null) {
        return null;
      }
      if (interval.getNano() % 1_000_000 != 0) {
        s.error("every", "must be a whole number of milliseconds, got " + interval);
        return null;
      }
      String anchor = s.text("anchor", null);
      Instant anchorAt;
      try {
        anchorAt = anchor == null ? Instant.EPOCH : Instant.parse(anchor);
      } catch (DateTimeParseException e) {
        s.error("anchor", "must be an ISO-8601 instant such as 2026-01-01T00:00:00Z");
        return null;
      }
      if (anchorAt.getNano() % 1_000_000 != 0) {
        s.error("anchor", "must be a whole number of milliseconds");
        return null;
      }
      return new IntervalSchedule(interval, anchorAt);
    }

    /** The HTTP target {@code field}, or null when absent or bad. */
    HttpTarget target(String field, TargetCheck check) {
      if (!node.hasNonNull(field)) {
        return null;
      }
      JsonNode raw = node.get(field);
      if (raw.isObject() && raw.has("secret")) {
        error(
            field + ".secret",
            "not accepted, so that no secret is stored: put it in the environment variable "
                + HttpTarget.SECRET_ENV_PREFIX
                + "<NAME> and give secretRef: <NAME>");
        ((ObjectNode) raw).remove("secret");
      }
      int before = errors.size();
      Fields t = object(field, TARGET_FIELDS);
      String type = t.text("type", HttpTarget.TYPE);
      if (!HttpTarget.TYPE.equals(type)) {
        t.error("type", "unknown target type '" + type + "' (one of http)");
      }
      URI url = t.url("url", check);
      String method = t.text("method", "POST").toUpperCase(Locale.ROOT);
      if (!HttpTarget.METHODS.contains(method)) {
        t.error("method", "must be one of " + String.join(", ", sorted(HttpTarget.METHODS)));
      }
      Map<String, String> headers = t.params("headers");
      headers.forEach((name, value) -> t.header(name, value));
      String body = t.text("body", "");
      Matcher m = PLACEHOLDER.matcher(body);
      while (m.find()) {
        if (!HttpTarget.PLACEHOLDERS.contains(m.group(1))) {
          t.error(
              "body",
              "unknown placeholder {{"
                  + m.group(1)
                  + "}} (known: "
                  + String.join(", ", sorted(HttpTarget.PLACEHOLDERS))
                  + ")");
        }
      }
      Duration timeout = t.duration("timeout", HttpTarget.DEFAULT_TIMEOUT, Duration.ofMillis(1));
      if (timeout != null && timeout.compareTo(HttpTarget.MAX_TIMEOUT) > 0) {
        t.error("timeout", "must be at most " + HttpTarget.MAX_TIMEOUT + ", got " + timeout);
      }
      String secretRef = t.text("secretRef", null);
      if (secretRef != null && !SECRET_REF.matcher(secretRef).matches()) {
        t.error(
            "secretRef",
            "must be 1 to 64 of A-Z, 0-9 and _ (the end of the variable "
                + HttpTarget.SECRET_ENV_PREFIX
                + "<NAME>)");
      }
      int maxPerSecond = t.intValue("maxPerSecond", 0, 1, 10_000);
      if (errors.size() > before || url == null) {
        return null;
      }
      return new HttpTarget(url, method, headers, body, timeout, secretRef, maxPerSecond);
    }

    private URI url(String field, TargetCheck check) {
      String v = text(field, null);
      if (v == null) {
        error(field, "missing");
        return null;
      }
      URI url;
      try {
        url = new URI(v);
      } catch (URISyntaxException e) {
        error(field, "not a URL: " + e.getMessage());
        return null;
      }
      String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        error(field, "must be an http or https URL, got '" + v + "'");
        return null;
      }
      if (url.getHost() == null || url.getHost().isEmpty()) {
        error(field, "must name a host, got '" + v + "'");
        return null;
      }
      if (url.getRawUserInfo() != null || url.getRawFragment() != null) {
        error(field, "must have neither user info nor a fragment, got '" + v + "'");
        return null;
      }
      Optional<String> refused = check.refusal(url);
      if (refused.isPresent()) {
        error(field, refused.get());
        return null;
      }
      return url;
    }

    private void header(String name, String value) {
      String lower = name.toLowerCase(Locale.ROOT);
      if (!TOKEN.matcher(name).matches()) {
        error("headers." + name, "is not a header name (an RFC 9110 token)");
      } else if (lower.startsWith("slotkeeper-") || RESERVED_HEADERS.contains(lower)) {
        error(
            "headers." + name,
            "is set by the delivery (Slotkeeper-*, Idempotency-Key, Host and the framing headers)");
      } else if (value.chars().anyMatch(c -> c < 0x20 && c != '\t' || c == 0x7f)) {
        error("headers." + name, "must not hold control characters");
      }
    }

    Map<String, String> params(String field) {
      JsonNode v = node.get(field);
      if (v == null || v.isNull()) {
        return Map.of();
      }
      if (!v.isObject()) {
        error(field, "must be a mapping of names to values");
        return Map.of();
      }
      Map<String, String> out = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isValueNode() || e.getValue().isNull()) {
          error(field + "." + e.getKey(), "must be a single value");
        } else {
          out.put(e.getKey(), e.getValue().asText());
        }
      }
      return out;
    }
  }
}
