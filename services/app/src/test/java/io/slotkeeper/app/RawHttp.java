package io.slotkeeper.app;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, for header values {@code java.net.http} cannot send as they are:
 * its HTTP/1.1 encoder writes header values as US-ASCII, so a key "ù-key" leaves the client as
 * "?-key" (a valid key the server rightly accepts). Header values here are byte strings: each char
 * (0x00 to 0xFF) is written as one byte; {@link #utf8} turns text into the bytes curl would send.
 */
final class RawHttp {

  private RawHttp() {}

  /** A response: status, headers (lower-case names), body as UTF-8. */
  record Response(int status, Map<String, String> headers, String body) {
    Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }
  }

  /** The byte string of {@code text} in UTF-8 (one char per byte). */
  static String utf8(String text) {
    return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
  }

  /** Whether {@code java.net.http} would send the value unchanged (printable ASCII or tab). */
  static boolean plainHeader(String value) {
    return value.chars().allMatch(c -> c == '\t' || (c >= 0x20 && c <= 0x7e));
  }

  /** Sends one request (Connection: close) and reads the whole answer, within 10 s. */
  static Response send(
      int port, String method, String path, Map<String, String> headers, byte[] body)
      throws IOException {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    head.append("Host: 127.0.0.1:").append(port).append("\r\n");
    head.append("Connection: close\r\n");
    head.append("Content-Length: ").append(body.length).append("\r\n");
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    head.append("\r\n");
    String h = head.toString();
    if (h.chars().anyMatch(c -> c > 0xff)) {
      throw new IllegalArgumentException("header values are byte strings (chars up to 0xFF)");
    }
    request.write(h.getBytes(StandardCharsets.ISO_8859_1));
    request.write(body);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.toByteArray());
      out.flush();
      return parse(socket.getInputStream().readAllBytes());
    }
  }

  private static Response parse(byte[] raw) throws IOException {
    String all = new String(raw, StandardCharsets.ISO_8859_1);
    int end = all.indexOf("\r\n\r\n");
    if (end < 0) {
      throw new IOException("no complete response: " + all);
    }
    String[] lines = all.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(
          lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).trim());
    }
    String body = all.substring(end + 4);
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      StringBuilder joined = new StringBuilder();
      int at = 0;
      while (true) {
        int eol = body.indexOf("\r\n", at);
        int size = Integer.parseInt(body.substring(at, eol).split(";")[0].trim(), 16);
        if (size == 0) {
          break;
        }
        joined.append(body, eol + 2, eol + 2 + size);
        at = eol + 2 + size + 2;
      }
      body = joined.toString();
    }
    return new Response(
        status,
        headers,
        new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
  }
}
