package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.slotkeeper.grpc.v1.Event;
import io.slotkeeper.grpc.v1.EventServiceGrpcClient;
import io.slotkeeper.grpc.v1.InventoryServiceGrpcClient;
import io.slotkeeper.grpc.v1.ReceiveStockRequest;
import io.slotkeeper.grpc.v1.SubscribeRequest;
import io.vertx.grpc.common.GrpcStatus;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 PING keep-alive on the gRPC port (1 s interval, 1 s timeout here): a peer that answers
 * keeps an idle Subscribe stream; a peer that does not is pinged, then disconnected.
 */
class GrpcKeepAliveIT {

  static AppHarness h;
  static GrpcTestClient grpc;

  @BeforeAll
  static void start() {
    h =
        new AppHarness(
            "grpc_keepalive",
            Map.of(
                "SLOTKEEPER_GRPC_KEEPALIVE", "PT1S", "SLOTKEEPER_GRPC_KEEPALIVE_TIMEOUT", "PT1S"));
    grpc = new GrpcTestClient(h.app.grpcPort());
  }

  @AfterAll
  static void stop() {
    grpc.close();
    h.close();
  }

  @Test
  void anIdleSubscriberThatAnswersPingsKeepsItsStream() throws Exception {
    GrpcTestClient.Stream<SubscribeRequest, Event> stream =
        grpc.stream(
            EventServiceGrpcClient.Subscribe,
            SubscribeRequest.newBuilder().addEventTypes("StockReceived").build(),
            AppHarness.CLIENT);
    try {
      // Idle for four keep-alive intervals: the client's PING acks keep the connection.
      assertThat(stream.received.poll(4, TimeUnit.SECONDS)).isNull();
      assertThat(stream.ended).isFalse();
      GrpcTestClient.Reply<?> receipt =
          grpc.call(
              InventoryServiceGrpcClient.ReceiveStock,
              ReceiveStockRequest.newBuilder()
                  .setIdempotencyKey("g-ka-1")
                  .setSku("G-KA")
                  .setQty(1)
                  .build(),
              AppHarness.CLIENT);
      assertThat(receipt.status()).isEqualTo(GrpcStatus.OK);
      Event e = stream.received.poll(10, TimeUnit.SECONDS);
      assertThat(e).as("the event, on the stream opened 4 s before").isNotNull();
      assertThat(e.getAggregateId()).isEqualTo("G-KA");
    } finally {
      stream.cancel();
    }
  }

  @Test
  void aPeerThatNeverAnswersPingsIsPingedThenDisconnected() throws Exception {
    try (Socket s = new Socket("127.0.0.1", h.app.grpcPort())) {
      s.setSoTimeout(15_000);
      OutputStream out = s.getOutputStream();
      // A well-behaved HTTP/2 client in every way but one: it never acknowledges a PING.
      out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(frame(0x4, 0)); // SETTINGS, none
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      long started = System.nanoTime();
      int pings = 0;
      boolean closed = false;
      try {
        while (true) {
          int length =
              (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
          int type = in.readUnsignedByte();
          int flags = in.readUnsignedByte();
          in.readInt(); // stream id
          in.readFully(new byte[length]);
          if (type == 0x4 && (flags & 0x1) == 0) {
            out.write(frame(0x4, 0x1)); // SETTINGS ack
            out.flush();
          } else if (type == 0x6 && (flags & 0x1) == 0) {
            pings++;
          }
        }
      } catch (EOFException | SocketException e) {
        closed = true;
      }
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
      assertThat(pings).as("PINGs before the server gave up").isGreaterThanOrEqualTo(1);
      assertThat(closed).isTrue();
      assertThat(seconds).as("closed after interval + timeout, not at once").isBetween(1L, 10L);
    }
  }

  /** An empty frame of a type, with flags, on stream 0. */
  private static byte[] frame(int type, int flags) {
    return new byte[] {0, 0, 0, (byte) type, (byte) flags, 0, 0, 0, 0};
  }
}
