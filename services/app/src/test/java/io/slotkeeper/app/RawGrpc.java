package io.slotkeeper.app;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

/**
 * gRPC calls whose body is any bytes (frames a gRPC client would never send), over HTTP/2 with
 * prior knowledge; the answer's status and message come from the trailers, or from the headers of a
 * trailers-only answer.
 */
final class RawGrpc implements AutoCloseable {

  /** The answer: {@code grpc-status}, {@code grpc-message} decoded, every header and trailer. */
  record Answer(String status, String message, MultiMap headers) {}

  private final Vertx vertx = Vertx.vertx();
  private final HttpClient h2 =
      vertx.createHttpClient(
          new HttpClientOptions()
              .setProtocolVersion(HttpVersion.HTTP_2)
              .setHttp2ClearTextUpgrade(false));
  private final int port;

  RawGrpc(int port) {
    this.port = port;
  }

  /** One call with {@code body} as its bytes; fails on a reset, or after 10 s (a hang). */
  Answer call(String path, Map<String, String> headers, Buffer body, String token)
      throws Exception {
    return h2.request(
            new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost("127.0.0.1")
                .setPort(port)
                .setURI(path))
        .compose(
            req -> {
              req.putHeader("content-type", "application/grpc").putHeader("te", "trailers");
              if (token != null) {
                req.putHeader("authorization", "Bearer " + token);
              }
              headers.forEach(req::putHeader);
              return req.send(body)
                  .compose(
                      resp ->
                          resp.body()
                              .map(
                                  b -> {
                                    MultiMap all =
                                        MultiMap.caseInsensitiveMultiMap()
                                            .addAll(resp.headers())
                                            .addAll(resp.trailers());
                                    return new Answer(
                                        all.get("grpc-status"),
                                        decode(all.get("grpc-message")),
                                        all);
                                  }));
            })
        .await(10, TimeUnit.SECONDS);
  }

  /** The SETTINGS_MAX_CONCURRENT_STREAMS the server announced on a new connection. */
  long serverMaxConcurrentStreams() throws Exception {
    return h2.request(
            new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost("127.0.0.1")
                .setPort(port)
                .setURI("/grpc.health.v1.Health/Check"))
        .compose(
            req ->
                req.putHeader("content-type", "application/grpc")
                    .send(frame(0, new byte[0]))
                    .compose(resp -> resp.body())
                    .map(b -> req.connection().remoteSettings().getMaxConcurrentStreams()))
        .await(10, TimeUnit.SECONDS);
  }

  /** A {@code grpc-message} as the spec encodes it (percent-encoded UTF-8 bytes), decoded. */
  static String decode(String message) {
    if (message == null) {
      return "";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      if (c == '%' && i + 2 < message.length()) {
        out.write(Integer.parseInt(message.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** A length-prefixed message: the compressed flag, the length, the payload. */
  static Buffer frame(int flag, byte[] payload) {
    return Buffer.buffer().appendByte((byte) flag).appendInt(payload.length).appendBytes(payload);
  }

  static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(data);
    }
    return out.toByteArray();
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }
}
