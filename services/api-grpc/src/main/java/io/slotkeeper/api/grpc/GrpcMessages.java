package io.slotkeeper.api.grpc;

import java.nio.charset.StandardCharsets;

/**
 * {@code grpc-message} as the gRPC spec (PROTOCOL-HTTP2) encodes it: UTF-8, with every byte outside
 * printable ASCII and {@code %} itself percent-encoded. Vert.x URL-encodes the message (clients
 * then show {@code Authorization%3A Bearer}), so the API sets the trailer itself. {@code +} is
 * encoded too: a form decoder (Vert.x's own gRPC client among them) reads a bare {@code +} as a
 * space ({@code U+0000} became {@code U 0000}), and every spec decoder reads {@code %2B} back.
 */
final class GrpcMessages {

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GrpcMessages() {}

  static String encode(String message) {
    StringBuilder out = new StringBuilder(message.length());
    for (byte b : message.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c >= 0x20 && c <= 0x7e && c != '%' && c != '+') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }
}
