package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.app.GrpcTestClient.Reply;
import io.slotkeeper.grpc.v1.CancelOrderRequest;
import io.slotkeeper.grpc.v1.GetOrderRequest;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.IssueRefundRequest;
import io.slotkeeper.grpc.v1.OrderLine;
import io.slotkeeper.grpc.v1.OrderServiceGrpcClient;
import io.slotkeeper.grpc.v1.PlaceOrderRequest;
import io.slotkeeper.grpc.v1.ProcessOrderRequest;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.RefundServiceGrpcClient;
import io.slotkeeper.grpc.v1.RequestRefundRequest;
import io.vertx.grpc.common.GrpcStatus;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Hostile input over gRPC: every answer is a refusal with an actionable status (never INTERNAL,
 * UNKNOWN or UNAVAILABLE, never a hang) and the state afterwards equals the state before.
 */
class GrpcFuzzIT {

  /** Statuses a refused request may get (the HTTP 4xx of docs/architecture.md, mapped). */
  static final Set<GrpcStatus> REFUSALS =
      EnumSet.of(
          GrpcStatus.INVALID_ARGUMENT,
          GrpcStatus.UNAUTHENTICATED,
          GrpcStatus.PERMISSION_DENIED,
          GrpcStatus.NOT_FOUND,
          GrpcStatus.FAILED_PRECONDITION,
          GrpcStatus.ALREADY_EXISTS,
          GrpcStatus.ABORTED,
          GrpcStatus.RESOURCE_EXHAUSTED);

  static AppHarness h;
  static GrpcTestClient grpc;

  /** A NEW order: cancelling it with a valid reason would succeed. */
  static String fuzzOrder;

  @BeforeContainer
  static void start() {
    h = new AppHarness("fuzz_grpc", Map.of());
    grpc = new GrpcTestClient(h.app.grpcPort());
    fuzzOrder =
        GrpcApiIT.ok(
                grpc.call(
                    OrderServiceGrpcClient.PlaceOrder,
                    GrpcApiIT.order("gfuzz-order", "c-1", "GFUZZ", 1, 100),
                    AppHarness.CLIENT))
            .getOrderId();
  }

  @AfterContainer
  static void stop() {
    grpc.close();
    h.close();
  }

  static String key() {
    return "gfuzz-" + UUID.randomUUID();
  }

  /** Strings that are never a valid identifier (spaces, control characters, too long, empty). */
  @Provide
  Arbitrary<String> invalidIds() {
    return Arbitraries.oneOf(
        HostileValues.hostileStrings().filter(s -> !s.isEmpty() && !isPlainId(s) && wellFormed(s)),
        HostileValues.hugeStrings().filter(GrpcFuzzIT::wellFormed),
        Arbitraries.just(""));
  }

  /** Any hostile string, valid-looking ones included (they must still not cause a 5xx). */
  /** Protobuf strings must be well-formed UTF-16 (the client cannot even encode others). */
  @Provide
  Arbitrary<String> hostile() {
    return Arbitraries.oneOf(HostileValues.hostileStrings(), HostileValues.hugeStrings())
        .filter(GrpcFuzzIT::wellFormed);
  }

  static boolean wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  @Provide
  Arbitrary<Integer> badQty() {
    return Arbitraries.oneOf(
        Arbitraries.of(0, -1, Integer.MIN_VALUE, 1_000_001, Integer.MAX_VALUE),
        Arbitraries.integers().lessOrEqual(0));
  }

  @Provide
  Arbitrary<String> badKeys() {
    return HostileValues.badKeys().filter(GrpcFuzzIT::isHeaderBytes);
  }

  /** Bad keys as the request's field carries them: any text, non-ASCII included. */
  @Provide
  Arbitrary<String> badKeyFields() {
    return Arbitraries.oneOf(
        HostileValues.nonAsciiKeyTexts(),
        HostileValues.badKeys().filter(s -> !s.isEmpty() && wellFormed(s)));
  }

  @Provide
  Arbitrary<String> badAuthorizations() {
    return HostileValues.badAuthorizations().filter(GrpcFuzzIT::isAsciiHeader);
  }

  static boolean isPlainId(String s) {
    return s.length() <= 128 && s.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '/');
  }

  /**
   * Room for one metadata value: the server's header list limit is 8 KB, counting every header plus
   * 32 bytes each, and the client refuses to send more (HeaderListSizeException).
   */
  static final int HEADER_ROOM = 7_000;

  /** Metadata values the client sends byte for byte: printable ASCII and bytes 0x80 to 0xFF. */
  static boolean isHeaderBytes(String s) {
    return s.length() < HEADER_ROOM
        && s.chars().allMatch(c -> (c >= 0x20 && c < 0x7f) || (c >= 0x80 && c <= 0xff));
  }

  static boolean isAsciiHeader(String s) {
    return s.length() < HEADER_ROOM && s.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
  }

  @Property(tries = 60)
  void placingAnInvalidOrderIsRefused(
      @ForAll("hostile") String customer,
      @ForAll("hostile") String sku,
      @ForAll("badQty") int qty,
      @ForAll("hostile") String currency) {
    // The quantity alone makes it invalid; hostile strings ride along in every other field.
    PlaceOrderRequest request =
        PlaceOrderRequest.newBuilder()
            .setIdempotencyKey(key())
            .setCustomerId(customer)
            .setCurrency(currency)
            .addItems(OrderLine.newBuilder().setSku(sku).setQty(qty).setUnitPriceCents(100))
            .build();
    assertRefused(
        "PlaceOrder",
        () -> grpc.call(OrderServiceGrpcClient.PlaceOrder, request, AppHarness.CLIENT),
        request);
  }

  @Property(tries = 60)
  void hostileIdentifiersAreRefused(@ForAll("invalidIds") String id) {
    assertRefused(
        "GetOrder",
        () ->
            grpc.call(
                OrderServiceGrpcClient.GetOrder,
                GetOrderRequest.newBuilder().setOrderId(id).build(),
                AppHarness.CLIENT),
        id);
    assertRefused(
        "CancelOrder",
        () ->
            grpc.call(
                OrderServiceGrpcClient.CancelOrder,
                CancelOrderRequest.newBuilder().setIdempotencyKey(key()).setOrderId(id).build(),
                AppHarness.CLIENT),
        id);
    assertRefused(
        "ProcessOrder",
        () ->
            grpc.call(
                OrderServiceGrpcClient.ProcessOrder,
                ProcessOrderRequest.newBuilder().setIdempotencyKey(key()).setOrderId(id).build(),
                AppHarness.OPERATOR),
        id);
    assertRefused(
        "IssueRefund",
        () ->
            grpc.call(
                RefundServiceGrpcClient.IssueRefund,
                IssueRefundRequest.newBuilder().setIdempotencyKey(key()).setRefundId(id).build(),
                AppHarness.OPERATOR),
        id);
    assertRefused("ReceiveStock", () -> receive(id, 1, ""), id);
  }

  @Provide
  Arbitrary<Integer> nonPositive() {
    return Arbitraries.oneOf(
        Arbitraries.of(0, -1, Integer.MIN_VALUE), Arbitraries.integers().lessOrEqual(0));
  }

  @Property(tries = 40)
  void outOfRangeAmountsAreRefused(
      @ForAll("hostile") String reason, @ForAll("nonPositive") int qty) {
    assertRefused(
        "RequestRefund",
        () ->
            grpc.call(
                RefundServiceGrpcClient.RequestRefund,
                RequestRefundRequest.newBuilder()
                    .setIdempotencyKey(key())
                    .setOrderId("no-such-order")
                    .setAmountCents(qty)
                    .setReason(reason)
                    .build(),
                AppHarness.CLIENT),
        qty);
    assertRefused("ReceiveStock", () -> receive("GFUZZ", qty, reason), qty);
  }

  /** Unstorable reasons in well-formed protobuf strings (control characters; no surrogates). */
  @Provide
  Arbitrary<String> unstorable() {
    return HostileValues.unstorableStrings().filter(GrpcFuzzIT::wellFormed);
  }

  @Property(tries = 40)
  void unstorableReasonsAreRefused(@ForAll("unstorable") String reason) {
    assertRefused("ReceiveStock", () -> receive("GFUZZ", 1, reason), reason);
    assertRefused(
        "CancelOrder",
        () ->
            grpc.call(
                OrderServiceGrpcClient.CancelOrder,
                CancelOrderRequest.newBuilder()
                    .setIdempotencyKey(key())
                    .setOrderId(fuzzOrder)
                    .setReason(reason)
                    .build(),
                AppHarness.CLIENT),
        reason);
  }

  @Property(tries = 40)
  void badIdempotencyKeysAreRefused(@ForAll("badKeys") String badKey) {
    ReceiveStockRequest request =
        ReceiveStockRequest.newBuilder().setSku("GFUZZ").setQty(1).build();
    Map<String, String> metadata = badKey == null ? Map.of() : Map.of("idempotency-key", badKey);
    assertRefused(
        "ReceiveStock",
        () ->
            grpc.call(
                InventoryServiceGrpcClient.ReceiveStock, request, AppHarness.CLIENT, metadata),
        badKey);
  }

  @Property(tries = 40)
  void badIdempotencyKeyFieldsAreRefused(@ForAll("badKeyFields") String badKey) {
    ReceiveStockRequest request =
        ReceiveStockRequest.newBuilder()
            .setIdempotencyKey(badKey)
            .setSku("GFUZZ")
            .setQty(1)
            .build();
    assertRefused(
        "ReceiveStock",
        () -> grpc.call(InventoryServiceGrpcClient.ReceiveStock, request, AppHarness.CLIENT),
        badKey);
  }

  @Property(tries = 40)
  void badTokensAreRefused(@ForAll("badAuthorizations") String authorization) {
    Map<String, String> metadata =
        HostileValues.NO_HEADER.equals(authorization)
            ? Map.of()
            : Map.of("authorization", authorization);
    ReceiveStockRequest request =
        ReceiveStockRequest.newBuilder().setIdempotencyKey(key()).setSku("GFUZZ").setQty(1).build();
    assertRefused(
        "ReceiveStock",
        () -> grpc.call(InventoryServiceGrpcClient.ReceiveStock, request, null, metadata),
        authorization);
  }

  private static Reply<?> receive(String sku, long qty, String reason) {
    return grpc.call(
        InventoryServiceGrpcClient.ReceiveStock,
        ReceiveStockRequest.newBuilder()
            .setIdempotencyKey(key())
            .setSku(sku)
            .setQty(qty)
            .setReason(reason)
            .build(),
        AppHarness.CLIENT);
  }

  private static void assertRefused(String rpc, Supplier<Reply<?>> call, Object input) {
    String before = h.effectsFingerprint();
    Reply<?> reply = call.get();
    assertThat(reply.status())
        .as(
            "%s: %s (%s) for %s",
            rpc,
            reply.status(),
            reply.message(),
            HttpFuzzIT.abbreviate(io.vertx.core.json.Json.encode(String.valueOf(input))))
        .isIn(REFUSALS);
    if (reply.status() != GrpcStatus.RESOURCE_EXHAUSTED) {
      // RESOURCE_EXHAUSTED comes from the transport (message over the size limit), unannotated.
      assertThat(reply.message()).as("%s: %s without a message", rpc, reply.status()).isNotBlank();
    }
    assertThat(h.effectsFingerprint()).as("state after %s", reply.status()).isEqualTo(before);
  }
}
