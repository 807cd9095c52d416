# slotkeeper: every set-up step a fresh machine (JDK 17 + Maven) needs is in these targets.
MVN ?= mvn -B -ntp
JAR := services/app/target/slotkeeper.jar

.PHONY: run test build fmt clean bench

## run: build if needed, then start the service (embedded PostgreSQL and Redis unless configured)
run: $(JAR)
	java -jar $(JAR)

$(JAR): $(shell find pom.xml shared-events services -name pom.xml -o -path '*/src/main/*' -type f 2>/dev/null)
	$(MVN) -q -DskipTests install

## build: compile, check formatting, package the runnable jar
build:
	$(MVN) -DskipTests install

## test: every test, against real PostgreSQL and Redis
test:
	$(MVN) install

BENCH_JAR := bench/target/slotkeeper-bench.jar

$(BENCH_JAR): $(JAR) $(shell find bench -name pom.xml -o -path '*/src/main/*' -type f 2>/dev/null)
	$(MVN) -q -Pbench -pl bench -am -DskipTests install

## bench: the benchmark (docs/benchmarks.md); writes bench/results/<date>.json and .md.
##        BENCH_QUICK=1 for a ~2-minute smoke run (results under bench/results/tmp/)
bench: $(JAR) $(BENCH_JAR)
	java -jar $(BENCH_JAR)

## fmt: apply google-java-format to all Java sources
fmt:
	$(MVN) -q spotless:apply

clean:
	$(MVN) -q clean
