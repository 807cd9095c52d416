package io.slotkeeper.receiver;

import java.util.Map;
import java.util.TreeMap;

/**
 * An RFC 9457 problem document, the receiver's error answer ({@code application/problem+json}),
 * written by hand so the JDBC API needs no JSON library. {@code errors} names each bad field, as
 * slotkeeper's own API does.
 */
record Problem(int status, String title, String detail, Map<String, String> errors) {

  static final String CONTENT_TYPE = "application/problem+json";

  Problem(int status, String title, String detail) {
    this(status, title, detail, Map.of());
  }

  String json() {
    StringBuilder json = new StringBuilder("{\"type\":\"about:blank\",\"title\":");
    quote(json, title).append(",\"status\":").append(status).append(",\"detail\":");
    quote(json, detail);
    if (!errors.isEmpty()) {
      json.append(",\"errors\":{");
      String separator = "";
      for (Map.Entry<String, String> e : new TreeMap<>(errors).entrySet()) {
        quote(json.append(separator), e.getKey()).append(':');
        quote(json, e.getValue());
        separator = ",";
      }
      json.append('}');
    }
    return json.append('}').toString();
  }

  private static StringBuilder quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format("\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    return json.append('"');
  }
}
