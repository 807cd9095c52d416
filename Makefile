# slotkeeper: every set-up step a fresh machine (JDK 17 + Maven) needs is in these targets.
MVN ?= mvn -B -ntp
JAR := services/app/target/slotkeeper.jar

.PHONY: run test unit lint-api fuzz faults build fmt clean chaos bench bench-schedules bench-deliveries soak

## run: build if needed, then start the service (embedded PostgreSQL and Redis unless configured),
##      listening on 127.0.0.1 only unless SLOTKEEPER_BIND_ADDRESS says otherwise; logs are readable
##      text on a terminal, JSON lines otherwise, unless SLOTKEEPER_LOG_FORMAT says
run: $(JAR)
	SLOTKEEPER_BIND_ADDRESS=$${SLOTKEEPER_BIND_ADDRESS:-127.0.0.1} \
	SLOTKEEPER_LOG_FORMAT=$${SLOTKEEPER_LOG_FORMAT:-$$([ -t 1 ] && echo text || echo json)} \
	  java @infra/jvm.options -jar $(JAR)

$(JAR): $(shell find pom.xml shared-events services receiver -name pom.xml -o -path '*/src/main/*' -type f 2>/dev/null)
	$(MVN) -q -DskipTests install

## build: compile, check formatting, package the runnable jar
build:
	$(MVN) -DskipTests install

## test: every test, against real PostgreSQL and Redis: the OpenAPI lint (lint-api), the unit tests
##       (*Test, surefire), then, after packaging, the integration tests (*IT, failsafe)
test: lint-api
	$(MVN) install

## unit: only the unit tests (*Test): no database, no Redis, no service started
unit:
	$(MVN) test

## lint-api: services/api-http/src/main/resources/openapi.yaml passes Redocly's lint (recommended
##           rules, no error); needs Node.js 20.19+ with npx (the npm registry, or npx's cache),
##           and is skipped with a message where npx is missing
REDOCLY_CLI ?= @redocly/cli@2.77.0
lint-api:
	@if command -v npx >/dev/null 2>&1; then \
	  REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --yes $(REDOCLY_CLI) lint --config infra/redocly.yaml services/api-http/src/main/resources/openapi.yaml; \
	else \
	  echo "lint-api: skipped, npx not found (install Node.js 20.19+ to lint openapi.yaml)"; \
	fi

## fuzz: the hostile-input properties (HttpFuzzIT, GrpcFuzzIT, GrpcFramingFuzzIT: gRPC framing and
##       compression) with FUZZ_TRIES tries each (make test: 150)
FUZZ_TRIES ?= 5000
fuzz:
	$(MVN) -q -DskipTests install
	$(MVN) -pl services/app verify -Djqwik.tries.default=$(FUZZ_TRIES) -Dit.test='*FuzzIT' \
	  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false

## faults: the fault-injection property (FaultPropertiesIT) over FAULT_SEEDS seeds (make test: 50);
##         one seed again: make faults FAULT_SEED=17
FAULT_SEEDS ?= 500
FAULT_FIRST_SEED ?= 1
faults:
	$(MVN) -q -DskipTests install
	$(MVN) -pl services/app verify -Dit.test=FaultPropertiesIT -Dtest=none \
	  -Dsurefire.failIfNoSpecifiedTests=false -Dfaults.seeds=$(FAULT_SEEDS) \
	  -Dfaults.firstSeed=$(FAULT_FIRST_SEED) $(if $(FAULT_SEED),-Dfaults.seed=$(FAULT_SEED))

CHAOS_JAR := chaos/target/chaos.jar
CHAOS_SECONDS ?= 180

$(CHAOS_JAR): $(JAR) $(shell find chaos services/faults -name pom.xml -o -path '*/src/main/*' -type f 2>/dev/null)
	$(MVN) -q -DskipTests install -pl services/faults,chaos

## chaos: the fault test (3 instances, kills, Redis restart, PostgreSQL crash + 10 s down, a pause,
## and a seeded FaultPlan of connection resets, latency, stalls and blackholes through fault proxies
## in front of PostgreSQL and Redis; CHAOS_FAULT_SEED reruns one; an HTTP-target schedule whose
## receiver, built on receiver/, counts one effect per completed slot); prints a verdict table, writes
## chaos/results/<time>.json, fails on any violation
chaos: $(CHAOS_JAR)
	CHAOS_SECONDS=$(CHAOS_SECONDS) SLOTKEEPER_LOG_FORMAT=text java -cp $(CHAOS_JAR):$(JAR) io.slotkeeper.chaos.Chaos

BENCH_JAR := bench/target/slotkeeper-bench.jar

$(BENCH_JAR): $(JAR) $(shell find bench -name pom.xml -o -path '*/src/main/*' -type f 2>/dev/null)
	$(MVN) -q -pl bench -am -DskipTests install

## bench: the benchmark (docs/benchmarks.md); writes bench/results/<date>.json and .md.
##        BENCH_QUICK=1 for a ~2-minute smoke run (results under bench/results/tmp/)
bench: $(JAR) $(BENCH_JAR)
	java -jar $(BENCH_JAR)

## bench-schedules: only the many-schedules part of make bench (10,000 one-minute schedules on one
##        instance for 5 minutes, then on three with one killed; about 15 minutes); writes
##        bench/results/schedules-<date>.json and .md. BENCH_QUICK=1: 300 schedules, 2 + 2 minutes
bench-schedules: $(JAR) $(BENCH_JAR)
	java -cp $(BENCH_JAR) io.slotkeeper.bench.PartBenchMain schedules

## bench-deliveries: only the HTTP-target part of make bench (deliveries per second at 1, 8 and 32
##        due at once, delivery lag at 1,000 one-minute schedules; about 8 minutes); writes
##        bench/results/deliveries-<date>.json and .md. BENCH_QUICK=1: 100 schedules, 1 minute
bench-deliveries: $(JAR) $(BENCH_JAR)
	java -cp $(BENCH_JAR) io.slotkeeper.bench.PartBenchMain deliveries

## soak: one instance holds 1,000 idle SSE subscribers and 1,000 idle connections while orders
##       arrive at a steady rate; checks place-order p99 (< 2x without them) and PostgreSQL
##       transactions per second (not growing with the subscribers); writes
##       bench/results/soak-<date>.json and .md, fails when a check fails (about 4 minutes)
soak: $(JAR) $(BENCH_JAR)
	ulimit -n 8192 2>/dev/null || ulimit -n $$(ulimit -Hn); java -cp $(BENCH_JAR) io.slotkeeper.bench.SoakMain

## fmt: apply google-java-format to all Java sources
fmt:
	$(MVN) -q spotless:apply

clean:
	$(MVN) -q clean
