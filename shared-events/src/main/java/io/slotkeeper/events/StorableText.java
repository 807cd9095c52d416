package io.slotkeeper.events;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one rule for text that slotkeeper stores: no control characters except tab and newline (NUL
 * above all: PostgreSQL refuses 0x00 in {@code text}, {@code varchar} and {@code jsonb}), and no
 * unpaired UTF-16 surrogate (it has no UTF-8 form). The HTTP and gRPC adapters refuse such text
 * with a 400 naming the field ({@link #problemWith}); the write side refuses commands that carry it
 * ({@link #problemsIn}); projections store text of events written before the rule with each such
 * character replaced by U+FFFD ({@link #sanitize}).
 */
public final class StorableText {

  /** What {@link #sanitize} puts in place of each refused character. */
  public static final char REPLACEMENT = '\uFFFD';

  /** The component accessors of each record type, looked up once. */
  private static final ClassValue<Method[]> ACCESSORS =
      new ClassValue<>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
          RecordComponent[] components = type.getRecordComponents();
          Method[] accessors = new Method[components.length];
          for (int i = 0; i < components.length; i++) {
            accessors[i] = components[i].getAccessor();
            accessors[i].trySetAccessible();
          }
          return accessors;
        }
      };

  private StorableText() {}

  /** Null when {@code s} may be stored (null included), else why not, naming the character. */
  public static String problemWith(String s) {
    int i = firstRefused(s);
    if (i < 0) {
      return null;
    }
    char c = s.charAt(i);
    String what =
        Character.isSurrogate(c)
            ? "an unpaired UTF-16 surrogate"
            : "a control character (only tab and newline are allowed)";
    return String.format("must not contain %s: U+%04X at character %d", what, (int) c, i + 1);
  }

  /** {@code s} with every refused character replaced by U+FFFD; {@code s} itself when clean. */
  public static String sanitize(String s) {
    int i = firstRefused(s);
    if (i < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length()).append(s, 0, i);
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        b.append(c).append(s.charAt(++i));
      } else {
        b.append(refused(c) ? REPLACEMENT : c);
      }
    }
    return b.toString();
  }

  /**
   * Every string in {@code value} that may not be stored, by its path ({@code reason}, {@code
   * items[0].sku}, {@code counts.<key>}), with its problem. {@code value} is walked through record
   * components, collections and map keys and values; other types hold no text of ours.
   */
  public static Map<String, String> problemsIn(Object value) {
    Map<String, String> problems = new LinkedHashMap<>();
    collect("", value, problems);
    return problems;
  }

  private static void collect(String path, Object value, Map<String, String> problems) {
    if (value instanceof String s) {
      String problem = problemWith(s);
      if (problem != null) {
        problems.put(path, problem);
      }
    } else if (value instanceof Record r) {
      String prefix = path.isEmpty() ? "" : path + ".";
      for (Method accessor : ACCESSORS.get(r.getClass())) {
        collect(prefix + accessor.getName(), component(r, accessor), problems);
      }
    } else if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        collect(path + "[" + i++ + "]", item, problems);
      }
    } else if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        collect(path + ".<key>", e.getKey(), problems);
        collect(path + "." + e.getKey(), e.getValue(), problems);
      }
    }
  }

  private static Object component(Record r, Method accessor) {
    try {
      return accessor.invoke(r);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read " + accessor + " of " + r.getClass(), e);
    }
  }

  /** The index of the first refused character; -1 when there is none (or {@code s} is null). */
  private static int firstRefused(String s) {
    if (s == null) {
      return -1;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (refused(c)) {
        return i;
      }
    }
    return -1;
  }

  /** A control character other than tab and newline, or a surrogate outside a pair. */
  private static boolean refused(char c) {
    return (Character.getType(c) == Character.CONTROL && c != '\t' && c != '\n')
        || Character.isSurrogate(c);
  }
}
