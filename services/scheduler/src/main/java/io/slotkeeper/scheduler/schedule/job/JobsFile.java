package io.slotkeeper.scheduler.schedule.job;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.slotkeeper.scheduler.schedule.CronSchedule;
import io.slotkeeper.scheduler.schedule.DstPolicy;
import io.slotkeeper.scheduler.schedule.IntervalSchedule;
import io.slotkeeper.scheduler.schedule.Schedule;
import io.slotkeeper.scheduler.schedule.policy.CatchUpPolicy;
import io.slotkeeper.scheduler.schedule.policy.OverlapPolicy;
import io.slotkeeper.scheduler.schedule.policy.RetryPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The configured jobs: the file named by {@code SLOTKEEPER_JOBS_FILE}, or the {@value
 * #DEFAULT_RESOURCE} shipped with this module. YAML (and so JSON). Parsing is strict — unknown
 * fields, duplicate keys and names, wrong types and out-of-range values are refused with a {@link
 * JobsFileException} naming the job and the field — because a typo in a schedule silently fires at
 * the wrong time, which is worse than not starting.
 *
 * @param source where the jobs were read from (a path or {@code classpath:...})
 * @param jobs the jobs, in file order
 */
public record JobsFile(String source, List<JobDefinition> jobs) {

  /** Class-path name of the default jobs file. */
  public static final String DEFAULT_RESOURCE = "slotkeeper-jobs.yaml";

  /** Environment variable naming a jobs file that replaces the default one. */
  public static final String ENV_VAR = "SLOTKEEPER_JOBS_FILE";

  private static final YAMLMapper YAML =
      YAMLMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();

  private static final Set<String> JOB_FIELDS =
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
          "handler");

  /** Copies the list. */
  public JobsFile {
    jobs = List.copyOf(jobs);
  }

  /** The file named by {@value #ENV_VAR} in {@code env}, else the default. */
  public static JobsFile fromEnvironment(Map<String, String> env) {
    String file = env.get(ENV_VAR);
    return file == null || file.isBlank() ? loadDefault() : load(Path.of(file.trim()));
  }

  /** The default jobs shipped as {@value #DEFAULT_RESOURCE}. */
  public static JobsFile loadDefault() {
    String source = "classpath:" + DEFAULT_RESOURCE;
    try (InputStream in = JobsFile.class.getClassLoader().getResourceAsStream(DEFAULT_RESOURCE)) {
      if (in == null) {
        throw new JobsFileException(source, "(file)", "not found on the class path");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), source);
    } catch (IOException e) {
      throw new JobsFileException(source, "cannot read: " + e.getMessage(), e);
    }
  }

  /** Reads the jobs file at {@code path}. */
  public static JobsFile load(Path path) {
    String source = path.toString();
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new JobsFileException(source, "cannot read: " + e, e);
    }
    return parse(text, source);
  }

  /** Parses YAML or JSON text; {@code source} only names it in errors. */
  public static JobsFile parse(String text, String source) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new JobsFileException(source, "not valid YAML: " + e.getOriginalMessage(), e);
    }
    Fields top = new Fields(source, "", root);
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new JobsFileException(source, "jobs", "missing (the file is empty)");
    }
    top.requireObject("", Set.of("jobs"));
    JsonNode list = root.get("jobs");
    if (list == null || !list.isArray()) {
      throw new JobsFileException(source, "jobs", "must be a list of jobs");
    }
    List<JobDefinition> jobs = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      JobDefinition job = parseJob(source, i, list.get(i));
      if (!names.add(job.name())) {
        throw new JobsFileException(
            source, "jobs[" + i + "] (" + job.name() + ").name", "duplicate job name");
      }
      jobs.add(job);
    }
    return new JobsFile(source, jobs);
  }

  private static JobDefinition parseJob(String source, int index, JsonNode node) {
    String at = "jobs[" + index + "]";
    if (node == null || !node.isObject()) {
      throw new JobsFileException(source, at, "must be a mapping of job fields");
    }
    Fields unnamed = new Fields(source, at + ".", node);
    String name = unnamed.text("name", null);
    if (name == null || name.isBlank()) {
      throw new JobsFileException(source, at + ".name", "missing");
    }
    Fields f = new Fields(source, at + " (" + name + ").", node);
    f.requireObject("", JOB_FIELDS);

    ZoneId zone = f.zone("zone");
    Fields dstFields = f.object("dst", Set.of("gap", "overlap"));
    DstPolicy dst =
        new DstPolicy(
            dstFields.enumValue("gap", DstPolicy.Gap.class, DstPolicy.DEFAULT.gap()),
            dstFields.enumValue("overlap", DstPolicy.Overlap.class, DstPolicy.DEFAULT.overlap()));
    Schedule schedule = f.schedule(zone, dst);

    Fields catchUp = f.object("catchUp", Set.of("policy", "window"));
    Fields retry =
        f.object("retry", Set.of("maxAttempts", "initialBackoff", "multiplier", "maxBackoff"));
    RetryPolicy defaults = RetryPolicy.DEFAULT;
    RetryPolicy retryPolicy =
        new RetryPolicy(
            retry.intValue("maxAttempts", defaults.maxAttempts(), 1, 100),
            retry.duration("initialBackoff", defaults.initialBackoff(), Duration.ZERO),
            retry.doubleValue("multiplier", defaults.multiplier(), 1.0, 100.0),
            retry.duration("maxBackoff", defaults.maxBackoff(), Duration.ZERO));
    return new JobDefinition(
        name,
        schedule,
        zone,
        f.bool("enabled", true),
        catchUp.enumValue("policy", CatchUpPolicy.class, CatchUpPolicy.LATEST),
        catchUp.duration("window", JobDefinition.DEFAULT_CATCH_UP_WINDOW, Duration.ZERO),
        f.enumValue("overlap", OverlapPolicy.class, OverlapPolicy.SKIP),
        dst,
        retryPolicy,
        f.duration("leaseTtl", JobDefinition.DEFAULT_LEASE_TTL, Duration.ofSeconds(1)),
        f.params("params"),
        f.text("handler", name));
  }

  /** Typed, validated reading of one mapping; every error names {@code prefix + field}. */
  private record Fields(String source, String prefix, JsonNode node) {

    private JobsFileException error(String field, String problem) {
      String path = prefix + field;
      if (path.endsWith(".")) {
        path = path.substring(0, path.length() - 1);
      }
      return new JobsFileException(source, path.isEmpty() ? "(top level)" : path, problem);
    }

    void requireObject(String field, Set<String> allowed) {
      if (!node.isObject()) {
        throw error(field, "must be a mapping");
      }
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!allowed.contains(key)) {
          throw error(key, "unknown field (known: " + String.join(", ", sorted(allowed)) + ")");
        }
      }
    }

    /** The nested mapping {@code field} (an empty one if absent), checked for unknown fields. */
    Fields object(String field, Set<String> allowed) {
      JsonNode child = node.get(field);
      if (child == null || child.isNull()) {
        return new Fields(source, prefix + field + ".", YAML.createObjectNode());
      }
      if (!child.isObject()) {
        throw error(field, "must be a mapping");
      }
      Fields nested = new Fields(source, prefix + field + ".", child);
      nested.requireObject("", allowed);
      return nested;
    }

    private JsonNode scalar(String field) {
      JsonNode v = node.get(field);
      if (v == null || v.isNull()) {
        return null;
      }
      if (!v.isValueNode()) {
        throw error(
            field,
            "must be a single value, not a " + v.getNodeType().name().toLowerCase(Locale.ROOT));
      }
      return v;
    }

    String text(String field, String fallback) {
      JsonNode v = scalar(field);
      if (v == null) {
        return fallback;
      }
      if (!v.isTextual()) {
        throw error(field, "must be text, got " + v);
      }
      return v.textValue().trim();
    }

    boolean bool(String field, boolean fallback) {
      JsonNode v = scalar(field);
      if (v == null) {
        return fallback;
      }
      if (!v.isBoolean()) {
        throw error(field, "must be true or false, got " + v);
      }
      return v.booleanValue();
    }

    int intValue(String field, int fallback, int min, int max) {
      JsonNode v = number(field, true);
      return v == null ? fallback : (int) inRange(field, v, min, max);
    }

    double doubleValue(String field, double fallback, double min, double max) {
      JsonNode v = number(field, false);
      return v == null ? fallback : inRange(field, v, min, max);
    }

    private JsonNode number(String field, boolean whole) {
      JsonNode v = scalar(field);
      if (v != null && (whole ? !v.isIntegralNumber() || !v.canConvertToInt() : !v.isNumber())) {
        throw error(field, "must be a " + (whole ? "whole number" : "number") + ", got " + v);
      }
      return v;
    }

    private double inRange(String field, JsonNode v, double min, double max) {
      double d = v.doubleValue();
      if (!(d >= min && d <= max)) {
        String range =
            v.isIntegralNumber() ? (long) min + " and " + (long) max : min + " and " + max;
        throw error(field, "must be between " + range + ", got " + v);
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
        throw error(field, "must be an ISO-8601 duration such as PT10S, got '" + v + "'");
      }
      if (d.compareTo(min) < 0) {
        throw error(field, "must be at least " + min + ", got " + d);
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
        throw error(field, "unknown value '" + v + "' (one of " + known + ")");
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
        throw error(field, "unknown time zone '" + v + "'");
      }
    }

    Schedule schedule(ZoneId zone, DstPolicy dst) {
      if (node.get("schedule") == null) {
        throw error("schedule", "missing (give cron or every)");
      }
      Fields s = object("schedule", Set.of("cron", "every", "anchor"));
      String cron = s.text("cron", null);
      boolean every = s.node.has("every");
      if ((cron == null) == !every) {
        throw error("schedule", "give exactly one of cron, every");
      }
      if (cron != null) {
        if (s.node.has("anchor")) {
          throw s.error("anchor", "only applies to every");
        }
        try {
          return new CronSchedule(cron, zone, dst);
        } catch (IllegalArgumentException e) {
          throw s.error("cron", e.getMessage());
        }
      }
      Duration interval = s.duration("every", null, Duration.ofMillis(1));
      if (interval.getNano() % 1_000_000 != 0) {
        throw s.error("every", "must be a whole number of milliseconds, got " + interval);
      }
      String anchor = s.text("anchor", null);
      Instant anchorAt;
      try {
        anchorAt = anchor == null ? Instant.EPOCH : Instant.parse(anchor);
      } catch (DateTimeParseException e) {
        throw s.error("anchor", "must be an ISO-8601 instant such as 2026-01-01T00:00:00Z");
      }
      if (anchorAt.getNano() % 1_000_000 != 0) {
        throw s.error("anchor", "must be a whole number of milliseconds");
      }
      return new IntervalSchedule(interval, anchorAt);
    }

    Map<String, String> params(String field) {
      JsonNode v = node.get(field);
      if (v == null || v.isNull()) {
        return Map.of();
      }
      if (!v.isObject()) {
        throw error(field, "must be a mapping of names to values");
      }
      Map<String, String> out = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isValueNode() || e.getValue().isNull()) {
          throw error(field + "." + e.getKey(), "must be a single value");
        }
        out.put(e.getKey(), e.getValue().asText());
      }
      return out;
    }

    private static List<String> sorted(Set<String> names) {
      List<String> out = new ArrayList<>(names);
      out.sort(null);
      return out;
    }
  }
}
