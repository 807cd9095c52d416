package io.slotkeeper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class FiguresTest {

  @Test
  void theMedianOfAnOddCountIsTheMiddleOneAndOfAnEvenCountTheMeanOfTheTwo() {
    assertThat(Figures.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(Figures.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    assertThat(Figures.median(List.of())).isNaN();
  }

  @Test
  void aFigureMissesWhenItsMedianMissesEvenIfOneRepetitionMeetsIt() {
    Figures f = new Figures().define("ratio", "Place order / ceiling", "", ">= 0.5", v -> v >= 0.5);
    f.add("ratio", 0.495);
    f.add("ratio", 0.4986);
    f.add("ratio", 0.653);

    assertThat(f.misses()).extracting(Figures.Spec::id).containsExactly("ratio");
    JsonObject row = f.json().getJsonObject(0);
    assertThat(row.getDouble("median")).isEqualTo(0.499);
    assertThat(row.getDouble("min")).isEqualTo(0.495);
    assertThat(row.getDouble("max")).isEqualTo(0.653);
    assertThat(row.getString("verdict")).isEqualTo("MISSES");
  }

  @Test
  void aValueJustUnderItsTargetIsNotPrintedAsTheTarget() {
    Figures f = new Figures().define("ratio", "Place order / ceiling", "", ">= 0.5", v -> v >= 0.5);
    f.add("ratio", 0.4986);

    assertThat(f.markdown()).contains("| 0.499 |").doesNotContain("0.50 ").contains("**MISSES**");
  }

  @Test
  void figuresWithoutTargetsOrValuesHaveNoVerdict() {
    Figures f =
        new Figures()
            .define("rate", "Orders", "req/s")
            .define("p99", "Orders p99", "ms", "< 50", v -> v < 50);
    f.add("rate", 250);

    assertThat(f.misses()).isEmpty();
    assertThat(f.markdown()).contains("| Orders (req/s) | 250 |").contains("| not measured |");
    assertThat(f.json().getJsonObject(1).getValue("median")).isNull();
  }

  @Test
  void anUndeclaredFigureIsRefused() {
    assertThatThrownBy(() -> new Figures().add("typo", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("typo");
  }

  @Test
  void ratiosPairTheValuesOfEachRepetition() {
    Figures f = ratioOf(List.of(1.0, 3.0), List.of(2.0, 4.0));

    assertThat(f.values("a/b")).containsExactly(0.5, 0.75);
    assertThat(f.notes()).isEmpty();
  }

  @Test
  void whenARepetitionFailedTheRatioIsOfTheMediansAndSaysSo() {
    Figures f = ratioOf(List.of(1.0, 3.0), List.of(4.0));

    assertThat(f.values("a/b")).containsExactly(0.5);
    assertThat(f.notes()).singleElement().asString().contains("not paired");
  }

  @Test
  void aRatioOfASkippedPhaseIsNotMeasured() {
    assertThat(ratioOf(List.of(1.0), List.of()).values("a/b")).isEmpty();
  }

  /** Figures a and b with these values per repetition, and their ratio a/b as the run makes it. */
  private static Figures ratioOf(List<Double> a, List<Double> b) {
    Figures f = new Figures().define("a", "a", "").define("b", "b", "").define("a/b", "a/b", "");
    a.forEach(v -> f.add("a", v));
    b.forEach(v -> f.add("b", v));
    BenchMain.ratio(f, "a/b", "a", "b");
    return f;
  }
}
