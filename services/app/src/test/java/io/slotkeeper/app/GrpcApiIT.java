package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slotkeeper.app.GrpcTestClient.Reply;
import io.slotkeeper.grpc.v1.BackfillJobRequest;
import io.slotkeeper.grpc.v1.BackfillJobResponse;
import io.slotkeeper.grpc.v1.CancelOrderRequest;
import io.slotkeeper.grpc.v1.Event;
import io.slotkeeper.grpc.v1.EventServiceGrpcClient;
import io.slotkeeper.grpc.v1.GetJobRequest;
import io.slotkeeper.grpc.v1.GetOrderRequest;
import io.slotkeeper.grpc.v1.GetRefundRequest;
import io.slotkeeper.grpc.v1.GetStockRequest;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.IssueRefundRequest;
import io.slotkeeper.grpc.v1.Job;
import io.slotkeeper.grpc.v1.JobPauseState;
import io.slotkeeper.grpc.v1.JobServiceGrpcClient;
import io.slotkeeper.grpc.v1.ListEventsRequest;
import io.slotkeeper.grpc.v1.ListEventsResponse;
import io.slotkeeper.grpc.v1.ListJobsRequest;
import io.slotkeeper.grpc.v1.ListJobsResponse;
import io.slotkeeper.grpc.v1.ListRefundsRequest;
import io.slotkeeper.grpc.v1.ListRefundsResponse;
import io.slotkeeper.grpc.v1.ListRunsRequest;
import io.slotkeeper.grpc.v1.ListRunsResponse;
import io.slotkeeper.grpc.v1.Order;
import io.slotkeeper.grpc.v1.OrderLine;
import io.slotkeeper.grpc.v1.OrderResult;
import io.slotkeeper.grpc.v1.OrderServiceGrpcClient;
import io.slotkeeper.grpc.v1.PauseJobRequest;
import io.slotkeeper.grpc.v1.PlaceOrderRequest;
import io.slotkeeper.grpc.v1.ProcessOrderRequest;
import io.slotkeeper.grpc.v1.ProcessOrderResponse;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.Refund;
import io.slotkeeper.grpc.v1.RefundServiceGrpcClient;
import io.slotkeeper.grpc.v1.RequestRefundRequest;
import io.slotkeeper.grpc.v1.StockLevel;
import io.slotkeeper.grpc.v1.StockLogRequest;
import io.slotkeeper.grpc.v1.StockLogResponse;
import io.slotkeeper.grpc.v1.SubscribeRequest;
import io.slotkeeper.grpc.v1.TriggerJobRequest;
import io.slotkeeper.grpc.v1.TriggerJobResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.health.v1.HealthCheckRequest;
import io.vertx.grpc.health.v1.HealthCheckResponse;
import io.vertx.grpc.reflection.v1.ServerReflectionRequest;
import io.vertx.grpc.reflection.v1.ServerReflectionResponse;
import io.vertx.grpc.reflection.v1.ServiceResponse;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gRPC API against a running service: every service, idempotency with HTTP, status codes. */
class GrpcApiIT {

  static AppHarness h;
  static GrpcTestClient grpc;

  @BeforeAll
  static void start() {
    h = new AppHarness("grpc_api", Map.of());
    grpc = new GrpcTestClient(h.app.grpcPort());
  }

  @AfterAll
  static void stop() {
    grpc.close();
    h.close();
  }

  static PlaceOrderRequest order(String key, String customer, String sku, int qty, long price) {
    return PlaceOrderRequest.newBuilder()
        .setIdempotencyKey(key)
        .setCustomerId(customer)
        .setCurrency("CNY")
        .addItems(OrderLine.newBuilder().setSku(sku).setQty(qty).setUnitPriceCents(price))
        .build();
  }

  static <T> T ok(Reply<T> reply) {
    assertThat(reply.status()).as(reply.message()).isEqualTo(GrpcStatus.OK);
    return reply.body();
  }

  /** Receives 10 of {@code sku}, places an order of it and processes it: a COMPLETED order. */
  static String completedOrder(String keys, String sku, int qty, long price) {
    ok(
        grpc.call(
            InventoryServiceGrpcClient.ReceiveStock,
            ReceiveStockRequest.newBuilder()
                .setIdempotencyKey("g-recv-" + keys)
                .setSku(sku)
                .setQty(10)
                .build(),
            AppHarness.CLIENT));
    String orderId =
        ok(grpc.call(
                OrderServiceGrpcClient.PlaceOrder,
                order("g-place-" + keys, "c-9", sku, qty, price),
                AppHarness.CLIENT))
            .getOrderId();
    assertThat(
            ok(grpc.call(
                    OrderServiceGrpcClient.ProcessOrder,
                    ProcessOrderRequest.newBuilder()
                        .setOrderId(orderId)
                        .setIdempotencyKey("g-proc-" + keys)
                        .build(),
                    AppHarness.OPERATOR))
                .getStatus())
        .isEqualTo("COMPLETED");
    return orderId;
  }

  @Test
  void orderServicePlacesGetsCancelsAndProcesses() {
    OrderResult placed =
        ok(
            grpc.call(
                OrderServiceGrpcClient.PlaceOrder,
                order("g-place-1", "c-1", "A", 2, 150),
                AppHarness.CLIENT));
    assertThat(placed.getStatus()).isEqualTo("NEW");
    assertThat(placed.getAmountCents()).isEqualTo(300);
    String orderId = placed.getOrderId();

    GetOrderRequest get = GetOrderRequest.newBuilder().setOrderId(orderId).build();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                grpc.call(OrderServiceGrpcClient.GetOrder, get, AppHarness.CLIENT).status()
                    == GrpcStatus.OK);
    Order read = ok(grpc.call(OrderServiceGrpcClient.GetOrder, get, AppHarness.CLIENT));
    assertThat(read.getCustomerId()).isEqualTo("c-1");
    assertThat(read.getItemsList()).hasSize(1);
    assertThat(read.getItems(0).getUnitPriceCents()).isEqualTo(150);

    // The key in metadata instead of the field.
    CancelOrderRequest cancel =
        CancelOrderRequest.newBuilder().setOrderId(orderId).setReason("changed mind").build();
    Reply<OrderResult> cancelled =
        grpc.call(
            OrderServiceGrpcClient.CancelOrder,
            cancel,
            AppHarness.CLIENT,
            Map.of("idempotency-key", "g-cancel-1"));
    assertThat(ok(cancelled).getStatus()).isEqualTo("CANCELLED");

    Reply<OrderResult> again =
        grpc.call(
            OrderServiceGrpcClient.CancelOrder,
            cancel.toBuilder().setIdempotencyKey("g-cancel-2").build(),
            AppHarness.CLIENT);
    assertThat(again.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    assertThat(again.message()).contains("it is CANCELLED");

    // Process: operator only.
    String other =
        ok(grpc.call(
                OrderServiceGrpcClient.PlaceOrder,
                order("g-place-2", "c-1", "NO-STOCK", 1, 100),
                AppHarness.CLIENT))
            .getOrderId();
    ProcessOrderRequest process =
        ProcessOrderRequest.newBuilder().setOrderId(other).setIdempotencyKey("g-proc-1").build();
    assertThat(grpc.call(OrderServiceGrpcClient.ProcessOrder, process, AppHarness.CLIENT).status())
        .isEqualTo(GrpcStatus.PERMISSION_DENIED);
    ProcessOrderResponse processed =
        ok(grpc.call(OrderServiceGrpcClient.ProcessOrder, process, AppHarness.OPERATOR));
    assertThat(processed.getOrderId()).isEqualTo(other);
    assertThat(processed.getStatus()).isNotEmpty();
  }

  @Test
  void inventoryServiceReceivesReadsAndLogs() {
    StockLevel received =
        ok(
            grpc.call(
                InventoryServiceGrpcClient.ReceiveStock,
                ReceiveStockRequest.newBuilder()
                    .setIdempotencyKey("g-recv-1")
                    .setSku("G-INV")
                    .setQty(7)
                    .build(),
                AppHarness.CLIENT));
    assertThat(received.getOnHand()).isEqualTo(7);
    assertThat(received.getAvailable()).isEqualTo(7);
    GetStockRequest get = GetStockRequest.newBuilder().setSku("G-INV").build();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              Reply<StockLevel> r =
                  grpc.call(InventoryServiceGrpcClient.GetStock, get, AppHarness.CLIENT);
              return r.status() == GrpcStatus.OK && r.body().getOnHand() == 7;
            });
    StockLogResponse log =
        ok(
            grpc.call(
                InventoryServiceGrpcClient.GetStockLog,
                StockLogRequest.newBuilder().setSku("G-INV").setLimit(10).build(),
                AppHarness.CLIENT));
    assertThat(log.getEntriesList()).hasSize(1);
    assertThat(log.getEntries(0).getDeltaOnHand()).isEqualTo(7);
    Reply<StockLogResponse> badLimit =
        grpc.call(
            InventoryServiceGrpcClient.GetStockLog,
            StockLogRequest.newBuilder().setSku("G-INV").setLimit(501).build(),
            AppHarness.CLIENT);
    assertThat(badLimit.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(badLimit.message()).contains("limit");
  }

  @Test
  void refundServiceRequestsReadsListsAndIssues() {
    String orderId = completedOrder("ref", "G-REF", 4, 250);

    Refund requested =
        ok(
            grpc.call(
                RefundServiceGrpcClient.RequestRefund,
                RequestRefundRequest.newBuilder()
                    .setIdempotencyKey("g-ref-1")
                    .setOrderId(orderId)
                    .setAmountCents(300)
                    .setReason("broken")
                    .build(),
                AppHarness.CLIENT));
    assertThat(requested.getStatus()).isEqualTo("REQUESTED");
    String refundId = requested.getRefundId();

    GetRefundRequest get = GetRefundRequest.newBuilder().setRefundId(refundId).build();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                grpc.call(RefundServiceGrpcClient.GetRefund, get, AppHarness.CLIENT).status()
                    == GrpcStatus.OK);
    assertThat(ok(grpc.call(RefundServiceGrpcClient.GetRefund, get, AppHarness.CLIENT)).getReason())
        .isEqualTo("broken");
    ListRefundsResponse list =
        ok(
            grpc.call(
                RefundServiceGrpcClient.ListRefunds,
                ListRefundsRequest.newBuilder().setOrderId(orderId).build(),
                AppHarness.CLIENT));
    assertThat(list.getRefundsList()).extracting(Refund::getRefundId).containsExactly(refundId);

    IssueRefundRequest issue =
        IssueRefundRequest.newBuilder().setRefundId(refundId).setIdempotencyKey("g-iss-1").build();
    assertThat(grpc.call(RefundServiceGrpcClient.IssueRefund, issue, AppHarness.CLIENT).status())
        .isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(
            ok(grpc.call(RefundServiceGrpcClient.IssueRefund, issue, AppHarness.OPERATOR))
                .getStatus())
        .isEqualTo("ISSUED");
  }

  @Test
  void jobServiceListsGetsRunsPausesResumesAndTriggers() {
    ListJobsResponse jobs =
        ok(
            grpc.call(
                JobServiceGrpcClient.ListJobs,
                ListJobsRequest.getDefaultInstance(),
                AppHarness.OPERATOR));
    assertThat(jobs.getJobsList()).extracting(Job::getName).contains("daily-report");
    Job job =
        ok(
            grpc.call(
                JobServiceGrpcClient.GetJob,
                GetJobRequest.newBuilder().setName("daily-report").build(),
                AppHarness.OPERATOR));
    assertThat(job.getSchedule()).startsWith("cron");
    assertThat(job.getNextSlotsList()).isNotEmpty();

    TriggerJobRequest trigger =
        TriggerJobRequest.newBuilder()
            .setIdempotencyKey("g-run-1")
            .setJob("daily-report")
            .setSlot(JobsHttpIT.REPORT_SLOT)
            .build();
    TriggerJobResponse run =
        ok(grpc.call(JobServiceGrpcClient.TriggerJob, trigger, AppHarness.OPERATOR));
    assertThat(run.getOutcome()).isEqualTo("COMPLETED");
    assertThat(run.getDuplicate()).isFalse();
    TriggerJobResponse dup =
        ok(
            grpc.call(
                JobServiceGrpcClient.TriggerJob,
                trigger.toBuilder().setIdempotencyKey("g-run-2").build(),
                AppHarness.OPERATOR));
    assertThat(dup.getDuplicate()).isTrue();
    Reply<TriggerJobResponse> offSchedule =
        grpc.call(
            JobServiceGrpcClient.TriggerJob,
            trigger.toBuilder()
                .setIdempotencyKey("g-run-3")
                .setSlot("2026-11-28T16:06:00Z")
                .build(),
            AppHarness.OPERATOR);
    assertThat(offSchedule.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    assertThat(offSchedule.message()).contains("not a slot");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ok(grpc.call(
                            JobServiceGrpcClient.ListRuns,
                            ListRunsRequest.newBuilder().setJob("daily-report").build(),
                            AppHarness.OPERATOR))
                        .getRunsCount()
                    == 1);
    ListRunsResponse runs =
        ok(
            grpc.call(
                JobServiceGrpcClient.ListRuns,
                ListRunsRequest.newBuilder().setJob("daily-report").build(),
                AppHarness.OPERATOR));
    assertThat(runs.getRuns(0).getSlot()).isEqualTo(JobsHttpIT.REPORT_SLOT);

    BackfillJobRequest backfill =
        BackfillJobRequest.newBuilder()
            .setIdempotencyKey("g-bf-dry")
            .setJob("retention-cleanup")
            .setFrom("2026-11-21T00:00:00Z")
            .setTo("2026-11-21T01:30:00Z")
            .setDryRun(true)
            .build();
    BackfillJobResponse listed =
        ok(grpc.call(JobServiceGrpcClient.BackfillJob, backfill, AppHarness.OPERATOR));
    assertThat(listed.getSlotsList())
        .containsExactly("2026-11-21T00:00:00Z", "2026-11-21T01:00:00Z");
    BackfillJobResponse fired =
        ok(
            grpc.call(
                JobServiceGrpcClient.BackfillJob,
                backfill.toBuilder().setIdempotencyKey("g-bf-1").setDryRun(false).build(),
                AppHarness.OPERATOR));
    assertThat(fired.getRunsList())
        .extracting(TriggerJobResponse::getOutcome)
        .containsExactly("COMPLETED", "COMPLETED");

    PauseJobRequest pause =
        PauseJobRequest.newBuilder().setJob("inventory-sync").setIdempotencyKey("g-p-1").build();
    JobPauseState paused = ok(grpc.call(JobServiceGrpcClient.PauseJob, pause, AppHarness.OPERATOR));
    assertThat(paused.getPaused()).isTrue();
    JobPauseState resumed =
        ok(
            grpc.call(
                JobServiceGrpcClient.ResumeJob,
                pause.toBuilder().setIdempotencyKey("g-r-1").build(),
                AppHarness.OPERATOR));
    assertThat(resumed.getPaused()).isFalse();
    assertThat(
            grpc.call(
                    JobServiceGrpcClient.GetJob,
                    GetJobRequest.newBuilder().setName("nope").build(),
                    AppHarness.OPERATOR)
                .status())
        .isEqualTo(GrpcStatus.NOT_FOUND);
  }

  @Test
  void eventServiceListsAndStreamsWithFilters() throws Exception {
    GrpcTestClient.Stream<SubscribeRequest, Event> stream =
        grpc.stream(
            EventServiceGrpcClient.Subscribe,
            SubscribeRequest.newBuilder()
                .setAfter(0)
                .addAggregateTypes("Inventory")
                .addEventTypes("StockReceived")
                .build(),
            AppHarness.CLIENT);
    try {
      ok(
          grpc.call(
              InventoryServiceGrpcClient.ReceiveStock,
              ReceiveStockRequest.newBuilder()
                  .setIdempotencyKey("g-recv-ev")
                  .setSku("G-EV")
                  .setQty(3)
                  .build(),
              AppHarness.CLIENT));
      ok(
          grpc.call(
              OrderServiceGrpcClient.PlaceOrder,
              order("g-place-ev", "c-ev", "G-EV", 1, 10),
              AppHarness.CLIENT));
      Event received = null;
      for (int i = 0; i < 50 && received == null; i++) {
        Event e = stream.received.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("an event within 10 s").isNotNull();
        assertThat(e.getAggregateType()).isEqualTo("Inventory");
        assertThat(e.getType()).isEqualTo("StockReceived");
        if (e.getAggregateId().equals("G-EV")) {
          received = e;
        }
      }
      assertThat(received).isNotNull();
      assertThat(new JsonObject(received.getPayloadJson()).getInteger("qty")).isEqualTo(3);
    } finally {
      stream.cancel();
    }

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                ok(
                        grpc.call(
                            EventServiceGrpcClient.List,
                            ListEventsRequest.newBuilder().addEventTypes("OrderPlaced").build(),
                            AppHarness.CLIENT))
                    .getEventsList()
                    .stream()
                    .anyMatch(e -> e.getPayloadJson().contains("c-ev")));
    ListEventsResponse page =
        ok(
            grpc.call(
                EventServiceGrpcClient.List,
                ListEventsRequest.newBuilder().setLimit(1).build(),
                AppHarness.CLIENT));
    assertThat(page.getEventsList()).hasSize(1);
    assertThat(page.getNext()).isEqualTo(page.getEvents(0).getPosition());
    ListEventsResponse onlyOrders =
        ok(
            grpc.call(
                EventServiceGrpcClient.List,
                ListEventsRequest.newBuilder().addAggregateTypes("Order").setLimit(1000).build(),
                AppHarness.CLIENT));
    assertThat(onlyOrders.getEventsList()).allMatch(e -> e.getAggregateType().equals("Order"));
    assertThat(
            grpc.call(EventServiceGrpcClient.List, ListEventsRequest.getDefaultInstance(), null)
                .status())
        .isEqualTo(GrpcStatus.UNAUTHENTICATED);
  }

  @Test
  void aKeyUsedOverHttpReplaysOverGrpcAndViceVersa() {
    String body =
        "{\"customerId\":\"c-x\",\"currency\":\"CNY\",\"items\":[{\"sku\":\"X\",\"qty\":2,\"unitPriceCents\":150}]}";
    HttpResponse<String> first = h.post("/v1/orders", AppHarness.CLIENT, "x-proto-1", body);
    assertThat(first.statusCode()).isEqualTo(201);
    String orderId = new JsonObject(first.body()).getString("orderId");
    long events = h.count("SELECT count(*) FROM domain_event_entry");

    Reply<OrderResult> replay =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            order("x-proto-1", "c-x", "X", 2, 150),
            AppHarness.CLIENT);
    assertThat(ok(replay).getOrderId()).isEqualTo(orderId);
    assertThat(replay.headers().get("idempotent-replayed")).isEqualTo("true");
    assertThat(h.count("SELECT count(*) FROM domain_event_entry")).isEqualTo(events);

    Reply<OrderResult> mismatch =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            order("x-proto-1", "c-other", "X", 2, 150),
            AppHarness.CLIENT);
    assertThat(mismatch.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    assertThat(mismatch.message()).contains("different request");

    // gRPC first, then HTTP with the same key and request: a replay of the gRPC answer.
    String grpcOrder =
        ok(grpc.call(
                OrderServiceGrpcClient.PlaceOrder,
                order("x-proto-2", "c-x", "X", 2, 150),
                AppHarness.CLIENT))
            .getOrderId();
    HttpResponse<String> httpReplay = h.post("/v1/orders", AppHarness.CLIENT, "x-proto-2", body);
    assertThat(httpReplay.statusCode()).isEqualTo(201);
    assertThat(httpReplay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(new JsonObject(httpReplay.body()).getString("orderId")).isEqualTo(grpcOrder);
  }

  @Test
  void errorsHaveTheirStatusAndAMessageNamingTheProblem() {
    PlaceOrderRequest good = order("g-err-1", "c-1", "A", 1, 100);
    Reply<OrderResult> noToken = grpc.call(OrderServiceGrpcClient.PlaceOrder, good, null);
    assertThat(noToken.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(noToken.message()).contains("Bearer");
    assertThat(grpc.call(OrderServiceGrpcClient.PlaceOrder, good, "wrong-token-000000").status())
        .isEqualTo(GrpcStatus.UNAUTHENTICATED);
    Reply<ListJobsResponse> clientOnJobs =
        grpc.call(
            JobServiceGrpcClient.ListJobs, ListJobsRequest.getDefaultInstance(), AppHarness.CLIENT);
    assertThat(clientOnJobs.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(clientOnJobs.message()).contains("operator");

    String before = h.stateFingerprint();
    Reply<OrderResult> invalid =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            good.toBuilder().clearCustomerId().build(),
            AppHarness.CLIENT);
    assertThat(invalid.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(invalid.message()).contains("customer_id is required");
    Reply<OrderResult> noKey =
        grpc.call(
            OrderServiceGrpcClient.PlaceOrder,
            good.toBuilder().clearIdempotencyKey().build(),
            AppHarness.CLIENT);
    assertThat(noKey.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(noKey.message()).contains("Idempotency-Key");
    assertThat(h.stateFingerprint()).isEqualTo(before);

    Reply<Order> unknown =
        grpc.call(
            OrderServiceGrpcClient.GetOrder,
            GetOrderRequest.newBuilder().setOrderId("nope").build(),
            AppHarness.CLIENT);
    assertThat(unknown.status()).isEqualTo(GrpcStatus.NOT_FOUND);
    assertThat(unknown.message()).contains("order nope is unknown");
    assertThat(
            grpc.call(
                    OrderServiceGrpcClient.CancelOrder,
                    CancelOrderRequest.newBuilder()
                        .setOrderId("nope")
                        .setIdempotencyKey("g-err-cancel")
                        .build(),
                    AppHarness.CLIENT)
                .status())
        .isEqualTo(GrpcStatus.NOT_FOUND);
  }

  /** NUL and other unstorable text in a reason: INVALID_ARGUMENT naming the field, no change. */
  @Test
  void unstorableTextIsInvalidArgumentNamingTheFieldAndChangesNothing() {
    String completed = completedOrder("nul", "G-NUL", 1, 100);
    String fresh =
        ok(grpc.call(
                OrderServiceGrpcClient.PlaceOrder,
                order("g-nul-place-2", "c-1", "G-NUL", 1, 100),
                AppHarness.CLIENT))
            .getOrderId();
    String before = h.stateFingerprint();

    for (String reason : java.util.List.of("a\u0000", "esc\u001b[0m")) {
      java.util.List<Reply<?>> refused =
          java.util.List.of(
              grpc.call(
                  OrderServiceGrpcClient.CancelOrder,
                  CancelOrderRequest.newBuilder()
                      .setOrderId(fresh)
                      .setIdempotencyKey("g-nul-c-" + reason.length())
                      .setReason(reason)
                      .build(),
                  AppHarness.CLIENT),
              grpc.call(
                  InventoryServiceGrpcClient.ReceiveStock,
                  ReceiveStockRequest.newBuilder()
                      .setIdempotencyKey("g-nul-r-" + reason.length())
                      .setSku("G-NUL")
                      .setQty(1)
                      .setReason(reason)
                      .build(),
                  AppHarness.CLIENT),
              grpc.call(
                  RefundServiceGrpcClient.RequestRefund,
                  RequestRefundRequest.newBuilder()
                      .setIdempotencyKey("g-nul-f-" + reason.length())
                      .setOrderId(completed)
                      .setAmountCents(10)
                      .setReason(reason)
                      .build(),
                  AppHarness.CLIENT));
      assertThat(refused)
          .as("cancel, receipt, refund with %s", reason)
          .extracting(Reply::status)
          .containsOnly(GrpcStatus.INVALID_ARGUMENT);
      for (Reply<?> r : refused) {
        assertThat(r.message()).contains("reason").contains("must not contain").contains("U+");
      }
    }
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @Test
  void nonAsciiIdempotencyKeysAreInvalidArgumentAndChangeNothing() {
    String before = h.stateFingerprint();
    ReceiveStockRequest noKey = ReceiveStockRequest.newBuilder().setSku("G-KEY").setQty(1).build();
    // The field carries text; metadata carries bytes (UTF-8 as most clients send it, or Latin-1).
    Reply<StockLevel> field =
        grpc.call(
            InventoryServiceGrpcClient.ReceiveStock,
            noKey.toBuilder().setIdempotencyKey("\u00f9-key").build(),
            AppHarness.CLIENT);
    Reply<StockLevel> utf8 =
        grpc.call(
            InventoryServiceGrpcClient.ReceiveStock,
            noKey,
            AppHarness.CLIENT,
            Map.of("idempotency-key", RawHttp.utf8("\u00f9-key")));
    Reply<StockLevel> latin1 =
        grpc.call(
            InventoryServiceGrpcClient.ReceiveStock,
            noKey,
            AppHarness.CLIENT,
            Map.of("idempotency-key", "cl\u00e9"));
    for (Reply<StockLevel> r : java.util.List.of(field, utf8, latin1)) {
      assertThat(r.status()).as(r.message()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(r.message()).contains("Idempotency-Key must be printable ASCII");
    }
    assertThat(field.message()).contains("character 1 is not");
    assertThat(utf8.message()).contains("character 1 is not");
    assertThat(latin1.message()).contains("character 3 is not");
    assertThat(h.stateFingerprint()).isEqualTo(before);
  }

  @Test
  void healthIsServingAndReflectionListsTheServices() {
    ServiceMethod<HealthCheckResponse, HealthCheckRequest> check = GrpcTestClient.health("Check");
    assertThat(ok(grpc.call(check, HealthCheckRequest.getDefaultInstance(), null)).getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(
            ok(grpc.call(
                    check,
                    HealthCheckRequest.newBuilder()
                        .setService("slotkeeper.v1.OrderService")
                        .build(),
                    null))
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(
            grpc.call(
                    check,
                    HealthCheckRequest.newBuilder()
                        .setService("slotkeeper.v1.NoSuchService")
                        .build(),
                    null)
                .status())
        .isEqualTo(GrpcStatus.NOT_FOUND);

    // v1alpha too: grpcurl and many client libraries ask it first (same messages as v1).
    for (String version : new String[] {"grpc.reflection.v1", "grpc.reflection.v1alpha"}) {
      ServiceMethod<ServerReflectionResponse, ServerReflectionRequest> reflect =
          ServiceMethod.client(
              ServiceName.create(version, "ServerReflection"),
              "ServerReflectionInfo",
              GrpcMessageEncoder.encoder(),
              GrpcMessageDecoder.decoder(ServerReflectionResponse.newBuilder()));
      ServerReflectionResponse services =
          ok(
              grpc.call(
                  reflect,
                  ServerReflectionRequest.newBuilder().setListServices("*").build(),
                  null));
      assertThat(services.getListServicesResponse().getServiceList())
          .as(version)
          .extracting(ServiceResponse::getName)
          .contains(
              "slotkeeper.v1.OrderService",
              "slotkeeper.v1.InventoryService",
              "slotkeeper.v1.RefundService",
              "slotkeeper.v1.JobService",
              "slotkeeper.v1.EventService",
              "grpc.health.v1.Health");
      ServerReflectionResponse file =
          ok(
              grpc.call(
                  reflect,
                  ServerReflectionRequest.newBuilder()
                      .setFileContainingSymbol("slotkeeper.v1.OrderService")
                      .build(),
                  null));
      assertThat(file.getFileDescriptorResponse().getFileDescriptorProtoCount())
          .as(version)
          .isPositive();
    }
  }
}
