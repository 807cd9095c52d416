package io.slotkeeper.api.grpc;

import io.slotkeeper.operations.idempotency.KeyedAnswers;
import io.slotkeeper.operations.problem.ApiProblem;
import io.vertx.grpc.common.GrpcStatus;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The one mapping of problems (the HTTP-shaped answers of the operation layer, see {@code
 * Problems}) to gRPC statuses; the message is the problem's detail plus the offending fields.
 */
public final class GrpcStatuses {

  private GrpcStatuses() {}

  /** The gRPC status of a problem. */
  public static GrpcStatus of(ApiProblem p) {
    switch (p.status()) {
      case 400:
      case 415:
        return GrpcStatus.INVALID_ARGUMENT;
      case 401:
        return GrpcStatus.UNAUTHENTICATED;
      case 403:
        return GrpcStatus.PERMISSION_DENIED;
      case 404:
        return GrpcStatus.NOT_FOUND;
      case 409:
        if (KeyedAnswers.IN_FLIGHT.equals(p.title())) {
          return GrpcStatus.ABORTED; // retry later with the same key
        }
        return "Already exists".equals(p.title())
            ? GrpcStatus.ALREADY_EXISTS
            : GrpcStatus.FAILED_PRECONDITION;
      case 413:
      case 429:
        return GrpcStatus.RESOURCE_EXHAUSTED;
      case 422:
        // Rule violated, key reused for another request, not a slot: the request is well formed
        // but the system's state (or the key's first request) does not allow it.
        return GrpcStatus.FAILED_PRECONDITION;
      case 503:
        return GrpcStatus.UNAVAILABLE;
      default:
        return p.status() >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.FAILED_PRECONDITION;
    }
  }

  /** The status message: the detail, then each offending field under its protobuf name. */
  public static String message(ApiProblem p) {
    if (p.fields().isEmpty()) {
      return p.detail();
    }
    return p.detail()
        + ": "
        + new TreeMap<>(p.fields())
            .entrySet().stream()
                .map(e -> protoName(e.getKey()) + " " + e.getValue())
                .collect(Collectors.joining("; "));
  }

  /** {@code items[0].unitPriceCents} → {@code items[0].unit_price_cents}. */
  static String protoName(String jsonName) {
    return jsonName.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase();
  }

  /** The problem a saved error answer (status + problem+json body) stands for. */
  public static ApiProblem problem(int status, io.vertx.core.json.JsonObject body) {
    Map<String, String> fields = new TreeMap<>();
    io.vertx.core.json.JsonObject errors = body.getJsonObject("errors");
    if (errors != null) {
      errors.forEach(e -> fields.put(e.getKey(), String.valueOf(e.getValue())));
    }
    return new ApiProblem(
        status, body.getString("title", "Error"), body.getString("detail", ""), fields);
  }
}
