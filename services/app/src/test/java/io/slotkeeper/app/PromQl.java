package io.slotkeeper.app;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Just enough PromQL to list the metric names an expression reads (tests only). */
final class PromQl {

  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "by", "without", "inf", "nan", "atan2");
  private static final Pattern IDENT = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  private PromQl() {}

  static Set<String> metricNames(String expr) {
    String s = expr;
    // Grafana's label_values(metric{...}, label): the metric only.
    s = s.replaceAll("label_values\\(\\s*([^,]+?)\\s*,\\s*\\w+\\s*\\)", "$1");
    s = s.replaceAll("label_values\\(\\s*\\w+\\s*\\)", " ");
    s = s.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", " ");
    s = s.replaceAll("\\{[^}]*\\}", " ");
    s = s.replaceAll("\\[[^\\]]*\\]", " ");
    s = s.replaceAll("(?i)\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    s = s.replaceAll("\\$\\{?\\w+\\}?", " ");
    Set<String> names = new LinkedHashSet<>();
    Matcher m = IDENT.matcher(s);
    while (m.find()) {
      String token = m.group();
      int before = m.start() - 1;
      if (before >= 0 && (Character.isDigit(s.charAt(before)) || s.charAt(before) == '.')) {
        continue; // part of a number such as 1e9
      }
      int next = m.end();
      while (next < s.length() && Character.isWhitespace(s.charAt(next))) {
        next++;
      }
      if (next < s.length() && s.charAt(next) == '(') {
        continue; // a function or aggregation
      }
      if (KEYWORDS.contains(token.toLowerCase(java.util.Locale.ROOT))) {
        continue;
      }
      names.add(token);
    }
    return names;
  }
}
