package io.slotkeeper.operations.support;

import io.slotkeeper.events.StorableText;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Strict reading of a JSON request body: wrong types, missing fields, out-of-range numbers, text
 * that cannot be stored and unknown fields are all collected and reported together as one 400
 * naming each field. HTTP and gRPC requests both pass here (the gRPC services build the same JSON).
 */
public final class RequestFields {

  public static final int MAX_STRING = 1024;

  private final JsonObject json;
  private final String prefix;
  private final Map<String, String> errors;

  private RequestFields(JsonObject json, String prefix, Map<String, String> errors) {
    this.json = json;
    this.prefix = prefix;
    this.errors = errors;
  }

  /** Reads a body that must only contain {@code allowed} fields. */
  public static RequestFields of(JsonObject json, Set<String> allowed) {
    RequestFields fields = new RequestFields(json, "", new LinkedHashMap<>());
    fields.rejectUnknown(allowed);
    return fields;
  }

  /** A nested object in an array, sharing this reader's error list. */
  public RequestFields nested(JsonObject nested, String path, Set<String> allowed) {
    RequestFields fields = new RequestFields(nested, path + ".", errors);
    fields.rejectUnknown(allowed);
    return fields;
  }

  private void rejectUnknown(Set<String> allowed) {
    for (String name : json.fieldNames()) {
      if (!allowed.contains(name)) {
        errors.put(prefix + name, "unknown field");
      }
    }
  }

  /** A required string of 1..maxLength characters. */
  public String string(String name, int maxLength) {
    String v = optionalString(name, maxLength);
    if (v == null && !errors.containsKey(prefix + name)) {
      errors.put(prefix + name, "is required");
    }
    return v;
  }

  /**
   * An optional string; null when absent. Like every string of a body, it must be storable text
   * ({@link StorableText}: no control characters but tab and newline, no unpaired surrogate).
   */
  public String optionalString(String name, int maxLength) {
    Object v = json.getValue(name);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String)) {
      errors.put(prefix + name, "must be a string");
      return null;
    }
    String s = (String) v;
    if (s.isEmpty() || s.length() > maxLength) {
      errors.put(prefix + name, "must be 1 to " + maxLength + " characters");
      return null;
    }
    String unstorable = StorableText.problemWith(s);
    if (unstorable != null) {
      errors.put(prefix + name, unstorable);
      return null;
    }
    return s;
  }

  /** A required whole number in [min, max]; JSON numbers with a fraction are refused. */
  public long number(String name, long min, long max) {
    Object v = json.getValue(name);
    if (v == null) {
      errors.put(prefix + name, "is required");
      return 0;
    }
    if (!(v instanceof Integer || v instanceof Long)) {
      errors.put(prefix + name, "must be a whole number between " + min + " and " + max);
      return 0;
    }
    long n = ((Number) v).longValue();
    if (n < min || n > max) {
      errors.put(prefix + name, "must be between " + min + " and " + max);
      return 0;
    }
    return n;
  }

  /** A required non-empty array of at most maxSize elements. */
  public JsonArray array(String name, int maxSize) {
    Object v = json.getValue(name);
    if (v == null) {
      errors.put(prefix + name, "is required");
      return new JsonArray();
    }
    if (!(v instanceof JsonArray)) {
      errors.put(prefix + name, "must be an array");
      return new JsonArray();
    }
    JsonArray a = (JsonArray) v;
    if (a.isEmpty() || a.size() > maxSize) {
      errors.put(prefix + name, "must have 1 to " + maxSize + " elements");
      return new JsonArray();
    }
    return a;
  }

  /** Records a problem found by the caller. */
  public void reject(String name, String problem) {
    errors.put(prefix + name, problem);
  }

  /** Throws a 400 naming every offending field, if any. */
  public void throwIfInvalid() {
    if (!errors.isEmpty()) {
      throw ApiProblem.invalid("the request body is invalid", errors);
    }
  }
}
