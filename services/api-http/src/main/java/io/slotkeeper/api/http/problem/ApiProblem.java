package io.slotkeeper.api.http.problem;

import java.util.Map;

/**
 * An error answer (RFC 9457 problem details): thrown or returned by routes, rendered once by {@link
 * Problems}. {@code fields} names offending request fields for validation problems.
 */
public final class ApiProblem extends RuntimeException {

  private final int status;
  private final String title;
  private final Map<String, String> fields;

  public ApiProblem(int status, String title, String detail) {
    this(status, title, detail, Map.of());
  }

  public ApiProblem(int status, String title, String detail, Map<String, String> fields) {
    super(detail, null, false, false);
    this.status = status;
    this.title = title;
    this.fields = Map.copyOf(fields);
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  public String detail() {
    return getMessage();
  }

  public Map<String, String> fields() {
    return fields;
  }

  public static ApiProblem badRequest(String detail) {
    return new ApiProblem(400, "Bad Request", detail);
  }

  public static ApiProblem invalid(String detail, Map<String, String> fields) {
    return new ApiProblem(400, "Invalid request", detail, fields);
  }

  public static ApiProblem notFound(String detail) {
    return new ApiProblem(404, "Not Found", detail);
  }
}
