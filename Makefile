# hoplat: what each hop between a client and a server costs.
GO      ?= go
BIN     ?= bin
PKGS    := ./...
# -p 1: one package's tests at a time. Many of them time real round trips
# (the tracer's spread paths, hopbench compare's same command twice), and on
# two CPUs another package's tests running beside them moved their figures:
# CI failed compare's null check three sets in a row.
TESTFLAGS ?= -p 1 -count=1 -timeout 20m
# The race detector runs on the tests of the packages that time nothing,
# and on the short tests of the timed packages with concurrent code
# (RACED), not on the timed packages' long tests: it slows what they time
# (rendering a report ran 35 times slower under it).
RACEFLAGS ?= -race -count=1 -timeout 20m
# The version hopbench records in its report (and report.html shows).
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo devel)
# make fuzz runs every Fuzz target in the tree for this long each.
FUZZTIME ?= 10s

.PHONY: all build test test-build test-short test-load check lint tidy static bench report deps clean fuzz

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/ ./cmd/...

# The packages whose tests time real round trips, or count CPU time, run one
# at a time (TESTFLAGS' -p 1), without the race detector; the others (the
# MySQL mock against MariaDB, the Galera cluster, hosts in network
# namespaces, the page in Chromium, the statistics, the router's acceptance
# tests in cmd/hoprelay/routecheck) time nothing, and run three at a time
# first, under it.
TIMED := ./cmd/hopbench ./cmd/hoprelay ./cmd/pingpong ./cmd/pongd ./cmd/internal/... ./driver ./relay ./tracer/... ./probe ./pingpong ./sockets ./affinity
# Benchmarks run once, beside the tests of their package (-bench .
# -benchtime=1x), so they keep compiling and working; the relay peer
# comparison is cut to one short round (make bench-relay runs it whole).
BENCHONCE := -bench . -benchtime=1x
# The packages that time nothing, and those of them that hold a benchmark.
UNTIMED = $(shell $(GO) list ./... | grep -vxF "$$($(GO) list $(TIMED))")
BENCHED = $(shell $(GO) list $$(find . -name '*_test.go' -not -path './.git/*' | xargs grep -l '^func Benchmark' | xargs -n1 dirname | sort -u))
BENCHENV := HOPLAT_RELAY_ROUNDS=1 HOPLAT_RELAY_CONNS=500 HOPLAT_RELAY_TIME=200ms HOPLAT_RELAY_STREAM=67108864
# hopbench's end-to-end tests that time nothing (they assert which paths
# ran, the report's shape, a proxy's errors, an attached process's chunks):
# make test runs them beside the untimed packages, not in the timed lane.
CMD_UNTIMED := ^(TestIntegrationNginxProxy|TestIntegrationRealBackend|TestIntegrationChainSweep|TestIntegrationThreadSweep|TestIntegrationSweepTwoBackends|TestIntegrationTraceJSON|TestIntegrationEveryRoundFails|TestAttachShape.*)$$
# The timed packages whose short tests make test runs a second time, under
# the race detector: the relays' and the client's concurrent code.
RACED := ./relay ./sockets ./pingpong

test: build
ifeq ($(PKGS),./...)
	@# Four lanes at once, none of which times anything: the timed
	@# packages' short tests under the race detector (make test-load holds
	@# those to their figures beside a busy loop per CPU), the untimed
	@# packages' tests (they mostly wait for MariaDB, Galera and SSH to
	@# start, so three run at a time), hopbench's end-to-end tests that
	@# assert only shapes and counts (CMD_UNTIMED), and the static checks,
	@# niced so that they take mostly the CPU those waits leave idle (with a
	@# cold cache they are minutes of CPU); nice 10, not 19, so that beside
	@# a busy loop per CPU they still get a tenth of it and finish.
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(GO) test $(RACEFLAGS) -p 2 -short $(RACED) & raced=$$!; \
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(GO) test $(TESTFLAGS) -run '$(CMD_UNTIMED)' ./cmd/hopbench & cmd=$$!; \
	{ nice -n 10 $(GO) vet $(PKGS) && nice -n 10 $(GO) tool staticcheck $(PKGS); } & static=$$!; \
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(GO) test $(RACEFLAGS) -p 3 $(UNTIMED); untimed=$$?; \
	ok=0; for pid in $$raced $$cmd $$static; do wait $$pid || ok=1; done; \
	[ $$untimed -eq 0 ] && [ $$ok -eq 0 ]
	@# With -bench, go test runs one package at a time: the untimed
	@# packages' benchmarks run after their tests, on the build those used.
	$(GO) test $(RACEFLAGS) -run '^$$' $(BENCHONCE) $(filter $(UNTIMED),$(BENCHED))
	@# Then the timed packages alone, one at a time.
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(BENCHENV) $(GO) test $(TESTFLAGS) -skip '$(CMD_UNTIMED)' $(BENCHONCE) $(TIMED)
else
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(BENCHENV) $(GO) test $(RACEFLAGS) $(BENCHONCE) $(PKGS)
endif

# test-build compiles every test binary make test runs, race-detecting
# and not, into Go's build cache, and runs none of them (-exec true): CI
# does it while make deps installs the peers.
test-build:
	$(GO) test $(RACEFLAGS) -exec true $(UNTIMED) $(RACED) >/dev/null
	$(GO) test -count=1 -exec true $(TIMED) >/dev/null

# The fast loop: every integration test (MariaDB, Galera, the tracer,
# Chromium, the peers) sits behind -short.
test-short: build
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(GO) test -short -count=1 $(PKGS)

# The fast loop of the packages that time something (TIMED), beside one
# busy loop per CPU: their timing assertions must hold on a loaded machine
# too. CI runs it once.
test-load: build
	@GO=$(GO) scripts/test-load.sh $(TIMED)

# lint is the static half of check: the quick checks, then static.
check: lint test

lint: tidy static

# tidy: formatting, go.mod, and no binary linking testing; quick, so CI
# runs it first.
tidy:
	@fmt=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$fmt" ]; then echo "gofmt: $$fmt"; exit 1; fi
	@# go.mod must say what the code imports: direct dependencies not marked
	@# indirect, nothing missing, nothing stale.
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum not tidy: run go mod tidy"; exit 1; }
	@# The binaries must not link the testing package (peer-finding for tests
	@# lives in internal/peer, production lookup in internal/locate).
	@if $(GO) list -deps ./cmd/... | grep -qx testing; then echo "a binary under cmd/ links testing:"; $(GO) list -f '{{.ImportPath}} {{.Imports}}' -deps ./cmd/... | grep -w testing; exit 1; fi

# static: go vet and staticcheck, pinned in go.mod as a tool: the same
# version runs on every machine, with nothing to install first. make test
# runs it too, beside the untimed tests.
static:
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)

# bench builds without echoing the command: the report is the first thing
# it prints.
bench:
	@mkdir -p $(BIN) && $(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN)/ ./cmd/...
	@scripts/bench.sh

# make report: the default job, every file of the run in REPORT_DIR with
# report.html, the one page to open (nothing is opened here).
REPORT_DIR ?= hoplat-report
report: build
	@scripts/bench.sh --out $(REPORT_DIR)

# make bench-NAME runs scripts/bench-NAME.sh on a fresh build, among them:
#   bench-attach: hopbench attach beside hopbench's added p50 for HAProxy,
#     socat and hoprelay on this machine, what attaching costs HAProxy's
#     p50, and Debian's Prometheus's quantiles beside attach's own for the
#     same window (needs root);
#   bench-hosts: MXS-1515's table with the database in a network namespace
#     of its own (needs root);
#   bench-threads: mysql-proxy's thread table, 1 to 128 threads through
#     every path, against pongd's mock and a real MariaDB;
#   bench-galera: field-notes.md §4, a three-node Galera cluster in network
#     namespaces, sysbench against one server and through HAProxy and each
#     hoprelay engine (needs root).
BENCHES := fidelity mysql probe relay attach seed hosts threads galera
.PHONY: $(addprefix bench-,$(BENCHES))
$(addprefix bench-,$(BENCHES)): bench-%: build
	@scripts/bench-$*.sh

deps:
	@scripts/deps.sh

# Every Fuzz target, found with go test -list, for FUZZTIME each.
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(PKGS)

clean:
	rm -rf $(BIN)
