# zlua: build, test and benchmark targets. Every target installs what it
# needs (Debian packages) through `deps`, idempotently.

GO       ?= go
BENCH_COUNT ?= 8

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
	$(GO) vet -tags nodirect ./callbackgate # the leaf calls other architectures build
	cd bench && $(GO) vet ./... && $(GO) vet -tags luajit ./...

# test: the default backend (Lua 5.4) under the race detector, then again
# with cgocheck2 to catch Go pointers stored in C memory.
test: deps vet test-lua54 fuzz-smoke bench-smoke

test-lua54: deps
	$(GO) test -race -count=1 ./...
	GOEXPERIMENT=cgocheck2 $(GO) test -count=1 ./...
	cd bench && $(GO) test -count=1 ./cmd/...

# test-luajit: the same suite on LuaJIT. The opaque handle tests run
# again as a position-independent binary: there zlua's own static data lies
# outside LuaJIT's first light userdata segment, so only zlua's boot-time
# interning keeps a handle push from allocating (see cgo/structs.c).
test-luajit: deps
	$(GO) test -race -count=1 -tags luajit ./...
	GOEXPERIMENT=cgocheck2 $(GO) test -count=1 -tags luajit ./...
	$(GO) test -count=1 -tags luajit -buildmode=pie -run 'Opaque|StructPointer' .
	$(MAKE) fuzz-smoke-luajit

# fuzz-smoke runs each fuzz target for a bounded number of inputs (a count,
# not a duration: a duration can end while a worker is mid-input and the
# fuzz engine then reports "context deadline exceeded"; the seed corpus in
# testdata/fuzz always runs as part of go test).
FUZZTIME ?= 20000x
fuzz-smoke: deps
	$(GO) test -run '^$$' -fuzz '^FuzzPopValues$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzBridgePrograms$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzPatterns$$' -fuzztime $(FUZZTIME) .

fuzz-smoke-luajit: deps
	$(GO) test -tags luajit -run '^$$' -fuzz '^FuzzPopValues$$' -fuzztime $(FUZZTIME) .
	$(GO) test -tags luajit -run '^$$' -fuzz '^FuzzBridgePrograms$$' -fuzztime $(FUZZTIME) .
	$(GO) test -tags luajit -run '^$$' -fuzz '^FuzzPatterns$$' -fuzztime $(FUZZTIME) .

# bench-smoke runs every benchmark once, and the bench package's tests (the
# three frame implementations agree, cmd/ratios), on both backends, so
# they cannot rot. Output is shown only on failure.
bench-smoke: deps
	@cd bench && out=$$(mktemp) && for tags in "" luajit; do \
		$(GO) test -count=1 -tags "$$tags" -bench . -benchtime 1x ./... >$$out 2>&1 || { cat $$out; rm -f $$out; exit 1; }; \
	done; rm -f $$out
	@echo "bench-smoke: every benchmark ran, on Lua 5.4 and LuaJIT"

# bench prints native C, zlua and gopher-lua side by side, as ratios of
# thread CPU time (wall time beside), medians of BENCH_COUNT samples taken
# in rounds (bench/rounds.sh: each round runs every row once, so the
# samples a ratio compares are seconds apart, not minutes; BENCH_CPU=N
# pins them to CPU N); it writes
# bench/RESULTS.md, bench/ratios.svg and the README's Lua 5.4 table.
# bench-luajit does the same on LuaJIT (RESULTS-luajit.md,
# ratios-luajit.svg, the README's LuaJIT table).
# Frame_ rows run a fixed number of frames, FRAMES: gopher-lua's tables
# never drop deleted keys from their pairs() order, so its frame cost
# grows with the frames run, and a time-based benchtime would run ten
# times more frames at 1k entities than at 10k. Pump_ benchmarks have
# untimed setups larger than what they time, and Scale_ ones are whole
# scenarios: both run a fixed number of iterations too.
FRAMES      ?= 200

bench: deps
	cd bench && bash rounds.sh $(BENCH_COUNT) $(FRAMES) | tee results.txt | \
		$(GO) run ./cmd/ratios -md RESULTS.md -svg ratios.svg -readme ../README.md -section lua54

bench-luajit: deps
	cd bench && bash rounds.sh $(BENCH_COUNT) $(FRAMES) -tags luajit | tee results-luajit.txt | \
		$(GO) run ./cmd/ratios -md RESULTS-luajit.md -svg ratios-luajit.svg -readme ../README.md -section luajit
