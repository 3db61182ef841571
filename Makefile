# hoplat: what each hop between a client and a server costs.
GO      ?= go
BIN     ?= bin
PKGS    := ./...
# -race roughly doubles run time; the suite is sized so it stays affordable.
TESTFLAGS ?= -race -count=1 -timeout 20m

.PHONY: all build test check bench deps clean fuzz bench-fidelity bench-mysql bench-relay bench-seed

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

test: build
	HOPLAT_BIN=$(CURDIR)/$(BIN) $(GO) test $(TESTFLAGS) $(PKGS)
	@# Benchmarks run once so they keep compiling and working; the relay
	@# peer comparison is cut to one short round here (make bench-relay runs it whole).
	HOPLAT_RELAY_ROUNDS=1 HOPLAT_RELAY_CONNS=500 $(GO) test -count=1 -run '^$$' -bench . -benchtime=1x $(PKGS)

check:
	@fmt=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$fmt" ]; then echo "gofmt: $$fmt"; exit 1; fi
	$(GO) vet $(PKGS)
	@if command -v staticcheck >/dev/null; then staticcheck $(PKGS); else echo "staticcheck not installed: skipped"; fi
	$(MAKE) test

bench: build
	@scripts/bench.sh

bench-fidelity: build
	@scripts/bench-fidelity.sh

bench-mysql: build
	@scripts/bench-mysql.sh

bench-relay: build
	@scripts/bench-relay.sh

bench-seed: build
	@scripts/bench-seed.sh

deps:
	@scripts/deps.sh

clean:
	rm -rf $(BIN)
