#!/usr/bin/env bash
# rounds.sh: the benchmark run behind `make bench` and `make bench-luajit`.
#
# Usage: rounds.sh COUNT FRAMES [go test build flags...]
#
# It builds the bench test binary once and runs every row COUNT times, in
# rounds: each round runs each benchmark once (native, zlua and gopher-lua
# of a row one after the other), so the samples a ratio compares are taken
# seconds apart. `go test -count N` would take the N samples of one
# implementation back to back, and a drift in the machine's speed over the
# minutes a run lasts (this VM's is large) would then land in the ratios.
# Frame_ rows run FRAMES frames, Pump_ rows 50 iterations (see the Makefile
# for why); Scale_ rows, whole scenarios, run three times after the rounds.
# The output is go test's, for cmd/ratios.
#
# BENCH_CPU=N runs the rounds pinned to CPU N with taskset (default: not
# pinned). Pinning does not shield a run from this VM's slow phases (up to
# twice the CPU time for every row, native C included, for minutes: they
# hit pinned runs too), and pinned to CPU 0 the zlua rows read 5-15 %
# higher than unpinned in interleaved runs (docs/PERFORMANCE-HISTORY.md, "Issue 10 after the
# seventh round"), so it is an option, not the default. Scale_ rows are
# never pinned: Scale_Parallel needs every core.
set -euo pipefail
count=$1 frames=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"${GO:-go}" test -c -o "$dir/bench.test" "$@" .
cpu=${BENCH_CPU-}
pin=()
if [[ -n $cpu ]] && command -v taskset >/dev/null && (($(nproc) > 1)); then
	pin=(taskset -c "$cpu")
fi
run() { "${pin[@]}" "$dir/bench.test" -test.run '^$' "$@"; }
for ((i = 1; i <= count; i++)); do
	run -test.bench . -test.skip 'Frame_|Pump_|Scale_'
	run -test.bench 'Frame_' -test.benchtime "${frames}x"
	run -test.bench 'Pump_' -test.benchtime 50x
done
pin=()
run -test.bench 'Scale_' -test.benchtime 1x -test.count 3
