#!/bin/sh
# callgrind.sh: instructions per iteration of the pattern benchmarks, zlua's
# functions against the stock ones, counted by valgrind (no timing noise).
# Usage: bench/patterns/callgrind.sh [lua54|luajit]   (needs gcc, valgrind)
set -eu
backend=${1:-lua54}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../cgo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $backend in
lua54) pc=lua5.4 def= ;;
luajit) pc=luajit def=-DZLUA_LUAJIT ;;
*) echo "usage: $0 [lua54|luajit]" >&2; exit 2 ;;
esac
gcc -O2 $def -I"$src" $(pkg-config --cflags $pc) "$here/driver.c" "$src/pattern.c" \
	"$src/pattern_lib.c" "$src/interrupt.c" $(pkg-config --libs $pc) -o "$tmp/driver"
N=20000
cat > "$tmp/base.lua" <<LUA
LUA
cat > "$tmp/find.lua" <<LUA
local s = "the quick brown fox jumps over the lazy dog"
local n = 0
for i = 1, $N do local a, b = find(s, "lazy", i % 8 + 1) n = n + b end
LUA
cat > "$tmp/match.lua" <<LUA
local s = "  player_name = Ada Lovelace  "
for i = 1, $N do local k, v = match(s, "^%s*([%w_]+)%s*=%s*(.-)%s*$") end
LUA
cat > "$tmp/gsub.lua" <<LUA
local s = "a  few   words\tand\n spaces "
for i = 1, $N do local r, n = gsub(s, "%s+", " ") end
LUA
cat > "$tmp/gmatch.lua" <<LUA
local s = "one two three four five six"
for i = 1, $N do for w in gmatch(s, "%a+") do end end
LUA
cat > "$tmp/gmatch100.lua" <<LUA
local s = ("word "):rep(100)
for i = 1, $N / 10 do for w in gmatch(s, "%a+") do end end
LUA
count() { # script impl [jitoff]
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$tmp/driver" "$tmp/$1.lua" "$2" ${3:-} 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
modes=on
[ "$backend" = luajit ] && modes="on off"
for mode in $modes; do
	off=
	[ "$mode" = off ] && off=jitoff
	[ "$backend" = luajit ] && echo "JIT $mode"
	bz=$(count base zlua $off); bn=$(count base native $off)
	printf '%-10s %14s %14s %7s\n' script native/iter zlua/iter ratio
	for s in find match gsub gmatch gmatch100; do
		n=$(count $s native $off); z=$(count $s zlua $off)
		iters=$N; [ $s = gmatch100 ] && iters=$((N / 10))
		awk -v n=$n -v z=$z -v bn=$bn -v bz=$bz -v it=$iters -v s=$s \
			'BEGIN { printf "%-10s %14.0f %14.0f %7.2f\n", s, (n-bn)/it, (z-bz)/it, (z-bz)/(n-bn) }'
	done
done
