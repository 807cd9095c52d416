package io.slotkeeper.operations.problem;

import java.util.Map;

/**
 * An error answer (RFC 9457 problem details): thrown or returned by routes, rendered once by {@link
 * Problems}. {@code fields} names offending request fields for validation problems.
 */
public final class ApiProblem extends RuntimeException {

  private final int status;
  private final String title;
  private final Map<String, String> fields;
  private final Map<String, String> headers;

  public ApiProblem(int status, String title, String detail) {
    this(status, title, detail, Map.of());
  }

  public ApiProblem(int status, String title, String detail, Map<String, String> fields) {
    this(status, title, detail, fields, Map.of());
  }

  /** A problem whose HTTP answer carries {@code headers} too (e.g. {@code Retry-After}). */
  public ApiProblem(
      int status,
      String title,
      String detail,
      Map<String, String> fields,
      Map<String, String> headers) {
    super(detail, null, false, false);
    this.status = status;
    this.title = title;
    this.fields = Map.copyOf(fields);
    this.headers = Map.copyOf(headers);
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

  /** Headers of the HTTP answer beyond the problem's own (none for most problems). */
  public Map<String, String> headers() {
    return headers;
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
