# zlua: build, test and benchmark targets. Every target installs what it
# needs (Debian packages) through `deps`, idempotently.

GO       ?= go
BENCH_COUNT ?= 6

.PHONY: all deps ci-warm vet test test-lua54 test-luajit bench bench-luajit bench-smoke fuzz-smoke fuzz-smoke-luajit

all: test test-luajit

# deps installs the Lua 5.4 and LuaJIT development packages when pkg-config
# cannot find them (.ci/deps: needs root or sudo, and apt, to install; does
# nothing when they are there).
deps:
	@sh .ci/deps

# ci-warm compiles everything test and test-luajit compile (every backend,
# race, cgocheck2 and fuzz build) and runs nothing: GOFLAGS=-exec=true makes
# each go test run `true` instead of the test binary. The Dockerfile runs it
# to bake the build cache into the CI image; being the same targets, it cannot
# miss a build that CI does.
ci-warm: deps
	GOFLAGS='$(strip $(GOFLAGS) -exec=true)' $(MAKE) --no-print-directory test test-luajit

vet: deps
	$(GO) vet ./...
	$(GO) vet -tags luajit ./...
	cd bench && $(GO) vet ./... && $(GO) vet -tags luajit ./...

# test: the default backend (Lua 5.4) under the race detector, then again
# with cgocheck2 to catch Go pointers stored in C memory.
test: deps vet test-lua54 fuzz-smoke bench-smoke

test-lua54: deps
	$(GO) test -race -count=1 ./...
	GOEXPERIMENT=cgocheck2 $(GO) test -count=1 ./...
	cd bench && $(GO) test -count=1 ./cmd/...

# test-luajit: the same suite on LuaJIT.
test-luajit: deps
	$(GO) test -race -count=1 -tags luajit ./...
	GOEXPERIMENT=cgocheck2 $(GO) test -count=1 -tags luajit ./...
	$(MAKE) fuzz-smoke-luajit

# fuzz-smoke runs each fuzz target for a bounded number of inputs (a count,
# not a duration: a duration can end while a worker is mid-input and the
# fuzz engine then reports "context deadline exceeded"; the seed corpus in
# testdata/fuzz always runs as part of go test).
FUZZTIME ?= 20000x
fuzz-smoke: deps
	$(GO) test -run '^$$' -fuzz '^FuzzPopValues$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzBridgePrograms$$' -fuzztime $(FUZZTIME) .

fuzz-smoke-luajit: deps
	$(GO) test -tags luajit -run '^$$' -fuzz '^FuzzPopValues$$' -fuzztime $(FUZZTIME) .
	$(GO) test -tags luajit -run '^$$' -fuzz '^FuzzBridgePrograms$$' -fuzztime $(FUZZTIME) .

# bench-smoke runs every benchmark once so they cannot rot.
bench-smoke: deps
	cd bench && $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./... >/dev/null
	cd bench && $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x -tags luajit ./... >/dev/null
	@echo "bench-smoke: every benchmark ran"

# bench prints native C, zlua and gopher-lua side by side, as ratios
# measured in one run (medians of BENCH_COUNT runs), and writes
# bench/RESULTS.md and bench/ratios.svg.
# Pump_ benchmarks have untimed setups larger than what they time, and
# Scale_ ones are whole scenarios: both run a fixed number of iterations.
BENCH_MAIN  = -run '^$$' -bench . -skip 'Pump_|Scale_' -count $(BENCH_COUNT)
BENCH_FIXED = -run '^$$' -bench 'Pump_' -benchtime 50x -count $(BENCH_COUNT)
BENCH_SCALE = -run '^$$' -bench 'Scale_' -benchtime 1x -count 3

bench: deps
	cd bench && { $(GO) test $(BENCH_MAIN) . && $(GO) test $(BENCH_FIXED) . && $(GO) test $(BENCH_SCALE) . ; } | tee results.txt | $(GO) run ./cmd/ratios -md RESULTS.md -svg ratios.svg

bench-luajit: deps
	cd bench && { $(GO) test -tags luajit $(BENCH_MAIN) . && $(GO) test -tags luajit $(BENCH_FIXED) . && $(GO) test -tags luajit $(BENCH_SCALE) . ; } | tee results-luajit.txt | $(GO) run ./cmd/ratios -md RESULTS-luajit.md -svg ratios-luajit.svg
