package io.slotkeeper.app;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.stream.Collectors;

/**
 * Every request an HTTP integration test sends through {@link AppHarness} and its answer, checked
 * against {@code openapi.yaml} with Atlassian's swagger-request-validator: the answer's status must
 * be declared on its operation and its body must match the declared schema; a request the document
 * calls invalid must have been refused (4xx). A violation fails the test that sent the request.
 *
 * <p>{@code -Dcontract.reportOnly=true} only lists the violations, one a line, in {@code
 * target/contract-violations.txt} (to count them when the document has drifted far).
 */
final class ContractCheck {

  private static final OpenApiInteractionValidator VALIDATOR = validator();
  private static final boolean REPORT_ONLY = Boolean.getBoolean("contract.reportOnly");
  private static final Path REPORT = Path.of("target", "contract-violations.txt");

  private ContractCheck() {}

  /** Checks one request (its body as sent) and its response; throws on a violation. */
  static void check(HttpRequest request, HttpResponse<String> response) {
    Request req = toRequest(request);
    SimpleResponse.Builder res =
        SimpleResponse.Builder.status(response.statusCode()).withBody(response.body());
    response.headers().map().forEach(res::withHeader);
    String where = request.method() + " " + request.uri().getRawPath();
    ValidationReport requestReport = VALIDATOR.validateRequest(req);
    int status = response.statusCode();
    String problem = null;
    if (requestReport.hasErrors() && (status < 400 || status >= 500)) {
      problem =
          where
              + ": the document calls the request invalid, yet it was answered "
              + status
              + ": "
              + messages(requestReport);
    } else if (!isUnknownOperation(requestReport)) {
      ValidationReport responseReport =
          VALIDATOR.validateResponse(request.uri().getRawPath(), req.getMethod(), res.build());
      if (responseReport.hasErrors()) {
        problem =
            where
                + " answered "
                + status
                + " "
                + abbreviated(response.body())
                + ": "
                + messages(responseReport);
      }
    }
    if (problem == null) {
      return;
    }
    if (REPORT_ONLY) {
      record(problem);
      return;
    }
    throw new AssertionError("contract violation (openapi.yaml): " + problem);
  }

  /**
   * A request to a path or method the document does not have (a test of 404 or 405): no operation
   * to check its answer by.
   */
  private static boolean isUnknownOperation(ValidationReport requestReport) {
    return requestReport.getMessages().stream()
        .anyMatch(
            m ->
                m.getKey().equals("validation.request.path.missing")
                    || m.getKey().equals("validation.request.operation.notAllowed"));
  }

  private static Request toRequest(HttpRequest request) {
    URI uri = request.uri();
    SimpleRequest.Builder b =
        new SimpleRequest.Builder(
            Request.Method.valueOf(request.method().toUpperCase(Locale.ROOT)), uri.getRawPath());
    request.headers().map().forEach(b::withHeader);
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&")) {
        String[] nv = pair.split("=", 2);
        b.withQueryParam(decode(nv[0]), nv.length > 1 ? decode(nv[1]) : "");
      }
    }
    String body = bodyOf(request);
    if (body != null && !body.isEmpty()) {
      b.withBody(body);
    }
    return b.build();
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** The request's body as sent (the JDK's publishers of strings and bytes replay it). */
  private static String bodyOf(HttpRequest request) {
    if (request.bodyPublisher().isEmpty()) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CompletableFuture<Void> done = new CompletableFuture<>();
    request
        .bodyPublisher()
        .get()
        .subscribe(
            new Flow.Subscriber<ByteBuffer>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ByteBuffer item) {
                byte[] bytes = new byte[item.remaining()];
                item.get(bytes);
                out.writeBytes(bytes);
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onComplete() {
                done.complete(null);
              }
            });
    done.join();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static String messages(ValidationReport report) {
    List<String> lines =
        report.getMessages().stream()
            .filter(m -> m.getLevel() == ValidationReport.Level.ERROR)
            .map(m -> m.getKey() + " " + m.getMessage().replace('\n', ' '))
            .collect(Collectors.toList());
    return String.join("; ", lines);
  }

  private static String abbreviated(String body) {
    String oneLine = body == null ? "" : body.replace('\n', ' ');
    return oneLine.length() > 200 ? oneLine.substring(0, 200) + "…" : oneLine;
  }

  private static synchronized void record(String problem) {
    try {
      Files.writeString(
          REPORT,
          problem + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static OpenApiInteractionValidator validator() {
    try {
      return OpenApiInteractionValidator.createForInlineApiSpecification(spec()).build();
    } catch (OpenApiInteractionValidator.ApiLoadException e) {
      throw new IllegalStateException("openapi.yaml does not load: " + e.getParseMessages(), e);
    }
  }

  private static String spec() {
    try (InputStream in =
        ContractCheck.class.getClassLoader().getResourceAsStream("openapi.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
