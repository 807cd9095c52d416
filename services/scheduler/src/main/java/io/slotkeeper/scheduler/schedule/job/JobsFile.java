package io.slotkeeper.scheduler.schedule.job;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
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
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw new JobsFileException(source, "jobs", "missing (the file is empty)");
    }
    if (!root.isObject()) {
      throw new JobsFileException(source, "(top level)", "must be a mapping");
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!key.equals("jobs")) {
        throw new JobsFileException(source, key, "unknown field (known: jobs)");
      }
    }
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
    JsonNode nameNode = node.get("name");
    if (nameNode != null && !nameNode.isNull() && !nameNode.isTextual()) {
      throw new JobsFileException(source, at + ".name", "must be text, got " + nameNode);
    }
    if (nameNode == null || nameNode.isNull() || nameNode.textValue().isBlank()) {
      throw new JobsFileException(source, at + ".name", "missing");
    }
    Map<String, String> errors = new LinkedHashMap<>();
    String prefix = at + " (" + nameNode.textValue().trim() + ").";
    return JobSpecs.read(node, prefix, JobSpecs.Rules.FILE, errors)
        .orElseThrow(
            () -> {
              // The first problem, as one line an operator can act on.
              Map.Entry<String, String> first = errors.entrySet().iterator().next();
              return new JobsFileException(source, first.getKey(), first.getValue());
            });
  }
}
