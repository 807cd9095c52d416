package io.slotkeeper.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoublePredicate;

/**
 * The figures of one benchmark run: each measured once per repetition, reported as median, min and
 * max, with its target and whether the median meets it.
 */
final class Figures {

  /** What a figure is, and its target ({@code null}: reported, no target). */
  record Spec(String id, String label, String unit, String target, DoublePredicate meets) {}

  private final Map<String, Spec> specs = new LinkedHashMap<>();
  private final Map<String, List<Double>> samples = new LinkedHashMap<>();
  private final List<String> notes = new ArrayList<>();

  /** Declares a figure (the order of declaration is the order of the table). */
  Figures define(String id, String label, String unit, String target, DoublePredicate meets) {
    specs.put(id, new Spec(id, label, unit, target, meets));
    samples.put(id, new ArrayList<>());
    return this;
  }

  Figures define(String id, String label, String unit) {
    return define(id, label, unit, null, null);
  }

  /** One repetition's value of a declared figure. */
  void add(String id, double value) {
    List<Double> list = samples.get(id);
    if (list == null) {
      throw new IllegalArgumentException("undeclared figure " + id);
    }
    list.add(value);
  }

  void note(String text) {
    notes.add(text);
  }

  static double median(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    Collections.sort(v);
    int n = v.size();
    return n == 0 ? Double.NaN : n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /** The values added so far, one per repetition, in order. */
  List<Double> values(String id) {
    return Collections.unmodifiableList(samples.get(id));
  }

  double median(String id) {
    return median(samples.get(id));
  }

  private String verdict(Spec spec, List<Double> values) {
    if (values.isEmpty()) {
      return "not measured";
    }
    if (spec.target() == null) {
      return "";
    }
    double m = median(values);
    return !Double.isNaN(m) && spec.meets().test(m) ? "meets" : "**MISSES**";
  }

  /** The figures whose median misses its target. */
  List<Spec> misses() {
    List<Spec> out = new ArrayList<>();
    specs.values().stream()
        .filter(s -> s.target() != null && !samples.get(s.id()).isEmpty())
        .filter(s -> verdict(s, samples.get(s.id())).contains("MISSES"))
        .forEach(out::add);
    return out;
  }

  JsonArray json() {
    JsonArray out = new JsonArray();
    for (Spec s : specs.values()) {
      List<Double> v = samples.get(s.id());
      out.add(
          new JsonObject()
              .put("id", s.id())
              .put("figure", s.label())
              .put("unit", s.unit())
              .put("median", finite(median(v)))
              .put("min", finite(v.stream().mapToDouble(d -> d).min().orElse(Double.NaN)))
              .put("max", finite(v.stream().mapToDouble(d -> d).max().orElse(Double.NaN)))
              .put("samples", new JsonArray(v.stream().map(Figures::finite).toList()))
              .put("target", s.target())
              .put("verdict", verdict(s, v).replace("*", "")));
    }
    return out;
  }

  /** A run's result file: when, which run, its settings, the machine, these figures and notes. */
  JsonObject result(
      String date, String runId, Instant started, String settings, JsonObject machine) {
    return new JsonObject()
        .put("date", date)
        .put("run", runId)
        .put("started", started.toString())
        .put("finished", Instant.now().toString())
        .put("settings", settings)
        .put("machine", machine)
        .put("figures", json())
        .put("notes", notes());
  }

  List<String> notes() {
    return notes;
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("| figure | median | min | max | target | verdict |\n");
    md.append("|---|---:|---:|---:|---|---|\n");
    for (Spec s : specs.values()) {
      List<Double> v = samples.get(s.id());
      md.append("| ")
          .append(s.label())
          .append(s.unit().isEmpty() ? "" : " (" + s.unit() + ")")
          .append(" | ")
          .append(format(median(v)))
          .append(" | ")
          .append(format(v.stream().mapToDouble(d -> d).min().orElse(Double.NaN)))
          .append(" | ")
          .append(format(v.stream().mapToDouble(d -> d).max().orElse(Double.NaN)))
          .append(" | ")
          .append(s.target() == null ? "" : s.target())
          .append(" | ")
          .append(verdict(s, v))
          .append(" |\n");
    }
    return md.toString();
  }

  private static Double finite(double d) {
    return Double.isFinite(d) ? Math.round(d * 1000) / 1000.0 : null;
  }

  static String format(double d) {
    if (Double.isNaN(d)) {
      return "–";
    }
    if (d == 0) {
      return "0";
    }
    if (Math.abs(d) >= 100) {
      return String.format("%,.0f", d);
    }
    if (Math.abs(d) >= 10) {
      return String.format("%.1f", d);
    }
    // Three decimals below 1: a ratio of 0.4986 against a target of 0.5 must not read "0.50".
    return String.format(Math.abs(d) >= 1 ? "%.2f" : "%.3f", d);
  }
}
