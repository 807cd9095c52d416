package io.slotkeeper.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every route mounted in the HTTP module's sources is described in openapi.yaml. */
class OpenApiCoverageTest {

  @Test
  void theDocumentIsWellFormedAndEveryReferenceResolves() throws IOException {
    com.fasterxml.jackson.databind.JsonNode doc;
    String text;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("openapi.yaml")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    doc = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(text);
    assertThat(doc.path("openapi").asText()).startsWith("3.");
    doc.path("paths")
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .fields()
                    .forEachRemaining(
                        op -> {
                          assertThat(op.getValue().isObject()).as(path.getKey()).isTrue();
                          op.getValue()
                              .path("parameters")
                              .forEach(
                                  p ->
                                      assertThat(p.isObject())
                                          .as("%s %s parameter", op.getKey(), path.getKey())
                                          .isTrue());
                        }));
    Matcher refs = Pattern.compile("#/components/(\\w+)/(\\w+)").matcher(text);
    while (refs.find()) {
      assertThat(doc.path("components").path(refs.group(1)).has(refs.group(2)))
          .as("%s resolves", refs.group())
          .isTrue();
    }
  }

  @Test
  void everyRouteIsDocumented() throws IOException {
    String spec;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("openapi.yaml")) {
      spec = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path sources = Path.of("..", "api-http", "src", "main", "java");
    Pattern route = Pattern.compile("router\\s*\\.\\s*(?:get|post)\\(\"([^\"]+)\"");
    int found = 0;
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path file :
          (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        Matcher m = route.matcher(Files.readString(file).replaceAll("\\s+", " "));
        while (m.find()) {
          String openApiPath = m.group(1).replaceAll(":([A-Za-z]+)", "{$1}");
          assertThat(spec).as("openapi.yaml documents %s", openApiPath).contains(openApiPath + ":");
          found++;
        }
      }
    }
    assertThat(found).isGreaterThan(5);
  }
}
