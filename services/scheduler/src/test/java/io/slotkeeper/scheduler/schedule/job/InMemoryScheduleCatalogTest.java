package io.slotkeeper.scheduler.schedule.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The catalog's list is sorted by name and follows every change, though sorted once per change. */
class InMemoryScheduleCatalogTest {

  private static JobDefinition job(String name) {
    return JobsFile.parse("jobs:\n  - name: " + name + "\n    schedule: { every: PT1S }\n", "t")
        .jobs()
        .get(0);
  }

  private static List<String> names(InMemoryScheduleCatalog catalog) {
    return catalog.all().stream().map(JobDefinition::name).toList();
  }

  @Test
  void everyChangeShowsInTheNextList() {
    InMemoryScheduleCatalog catalog =
        InMemoryScheduleCatalog.of(
            JobsFile.parse("jobs:\n  - name: m\n    schedule: { every: PT1S }\n", "t"));
    List<String> announced = new ArrayList<>();
    catalog.onChange(announced::add);
    assertThat(names(catalog)).containsExactly("m");
    assertThat(catalog.all()).isSameAs(catalog.all()); // the same list until something changes
    catalog.put(job("z"));
    catalog.put(job("a"));
    assertThat(names(catalog)).containsExactly("a", "m", "z");
    catalog.remove("m");
    assertThat(names(catalog)).containsExactly("a", "z");
    catalog.put(job("a")); // equal: not announced, the list still right
    assertThat(names(catalog)).containsExactly("a", "z");
    assertThat(announced).containsExactly("z", "a", "m");
  }
}
