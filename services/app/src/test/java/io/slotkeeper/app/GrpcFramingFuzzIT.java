package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * gRPC framing and compression as a careless or hostile client sends them: any sequence of frames
 * (any compressed flag, lengths that lie, payloads of random bytes or gzip of random bytes, a
 * trailing partial frame), under any {@code grpc-encoding}, with and without a token, to every
 * service. Every call ends within 10 s with a gRPC status (never a reset or a hang), never UNKNOWN
 * or UNAVAILABLE, INTERNAL only for the framing errors the spec gives it, and a readable message
 * whenever it is not OK.
 */
class GrpcFramingFuzzIT {

  static final List<String> PATHS =
      List.of(
          "/slotkeeper.v1.OrderService/GetOrder",
          "/slotkeeper.v1.OrderService/PlaceOrder",
          "/slotkeeper.v1.RefundService/ListRefunds",
          "/slotkeeper.v1.EventService/List",
          "/grpc.health.v1.Health/Check");

  /** OK, and every status a refusal may carry (the HTTP 4xx mapped, plus the framing ones). */
  static final Set<String> STATUSES =
      Set.of("0", "3", "5", "7", "8", "9", "10", "12", "13", "16", "6");

  static AppHarness h;
  static RawGrpc raw;

  @BeforeContainer
  static void start() {
    h = new AppHarness("fuzz_grpc_framing", Map.of());
    raw = new RawGrpc(h.app.grpcPort());
  }

  @AfterContainer
  static void stop() throws Exception {
    raw.close();
    h.close();
  }

  /** One frame as sent: the flag byte, the length it claims (may lie), its payload. */
  record Frame(int flag, Integer claimedLength, byte[] payload, boolean gzip) {
    Buffer bytes() throws Exception {
      byte[] p = gzip ? RawGrpc.gzip(payload) : payload;
      return Buffer.buffer()
          .appendByte((byte) flag)
          .appendInt(claimedLength == null ? p.length : claimedLength)
          .appendBytes(p);
    }
  }

  @Provide
  Arbitrary<List<Frame>> frames() {
    return frame().list().ofMaxSize(3);
  }

  Arbitrary<Frame> frame() {
    return Combinators.combine(
            Arbitraries.oneOf(Arbitraries.of(0, 1), Arbitraries.integers().between(0, 255)),
            Arbitraries.oneOf(
                Arbitraries.just((Integer) null),
                Arbitraries.just((Integer) null),
                Arbitraries.integers().between(0, 70_000),
                Arbitraries.of(Integer.MAX_VALUE, -1, 300_000)),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
            Arbitraries.of(true, false))
        .as(Frame::new);
  }

  @Provide
  Arbitrary<String> encodings() {
    return Arbitraries.oneOf(
        Arbitraries.of("", "identity", "gzip", "deflate", "br", "GZIP", "gzip, identity"),
        Arbitraries.strings().alpha().ofMaxLength(12));
  }

  @Property
  void everyFramingGetsAStatusWithAMessage(
      @ForAll("frames") List<Frame> frames,
      @ForAll("encodings") String encoding,
      @ForAll byte[] trailing,
      @ForAll boolean token,
      @ForAll("paths") String path)
      throws Exception {
    Buffer body = Buffer.buffer();
    for (Frame f : frames) {
      body.appendBuffer(f.bytes());
    }
    body.appendBytes(trailing, 0, Math.min(trailing.length, 4));
    Map<String, String> headers = new HashMap<>();
    if (!encoding.isEmpty()) {
      headers.put("grpc-encoding", encoding);
    }
    RawGrpc.Answer a = raw.call(path, headers, body, token ? AppHarness.CLIENT : null);
    assertThat(a.status()).as(a.message()).isIn(STATUSES);
    if (!a.status().equals("0")) {
      assertThat(a.message()).as("status " + a.status()).isNotBlank();
    }
    if (a.status().equals("13")) {
      assertThat(a.message())
          .containsAnyOf("compressed", "inflated", "ended inside a message", "flag must be");
    }
  }

  @Provide
  Arbitrary<String> paths() {
    return Arbitraries.of(PATHS);
  }
}
