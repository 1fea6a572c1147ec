package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// adversary is McIlroy's "antiquicksort" adversary: values are decided
// only when a comparison needs them ("gas" until then), so that the sort
// it answers for takes its worst path; the values it ends with are an
// input on which the same sort takes that path again with a plain <.
type adversary struct {
	val       []int
	gas       int
	solid     int
	candidate int
}

func (a *adversary) less(x, y int) bool {
	if a.val[x] == a.gas && a.val[y] == a.gas {
		if x == a.candidate {
			a.val[x] = a.solid
		} else {
			a.val[y] = a.solid
		}
		a.solid++
	}
	if a.val[x] == a.gas {
		a.candidate = x
	} else if a.val[y] == a.gas {
		a.candidate = y
	}
	return a.val[x] < a.val[y]
}

// luaSort replays Lua 5.1's table.sort (LuaJIT's too): median of three,
// the pivot parked at u-1, recursion on the smaller part. t is 1-based.
func luaSort(t []int, less func(x, y int) bool, l, u int) {
	for l < u {
		if less(t[u], t[l]) {
			t[l], t[u] = t[u], t[l]
		}
		if u-l == 1 {
			return
		}
		i := (l + u) / 2
		if less(t[i], t[l]) {
			t[i], t[l] = t[l], t[i]
		} else if less(t[u], t[i]) {
			t[i], t[u] = t[u], t[i]
		}
		if u-l == 2 {
			return
		}
		p := t[i]
		t[i], t[u-1] = t[u-1], t[i]
		i, j := l, u-1
		for {
			for i++; less(t[i], p); i++ {
			}
			for j--; less(p, t[j]); j-- {
			}
			if j < i {
				break
			}
			t[i], t[j] = t[j], t[i]
		}
		t[u-1], t[i] = t[i], t[u-1]
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		luaSort(t, less, j, i)
	}
}

func killer(n int) []int {
	a := &adversary{val: make([]int, n+1), gas: n + 1, candidate: -1}
	t := make([]int, n+1)
	for i := 1; i <= n; i++ {
		a.val[i] = a.gas
		t[i] = i
	}
	luaSort(t, a.less, 1, n)
	for i := 1; i <= n; i++ {
		if a.val[i] == a.gas {
			a.val[i] = a.solid
			a.solid++
		}
	}
	return a.val[1:]
}

// TestDeadlineStopsACraftedSort: LuaJIT's table.sort (Lua 5.1's
// quicksort: median of three, no random pivot) is quadratic on the
// order McIlroy's adversary makes, and without a comparator it runs no
// instruction and makes no call: 20,000 numbers sorted for 1.7 s past a
// 50 ms deadline (probe P2 F3). Inside limited calls a long table is now
// sorted with a C comparator, whose calls the hurried hook stops. Lua
// 5.4's sort picks random pivots: the same order sorts in milliseconds.
func TestDeadlineStopsACraftedSort(t *testing.T) {
	e := newEnv(t)
	n := 20000
	if raceEnabled {
		n = 6000 // the adversary's 10^8 comparisons take 13 s under -race; the cgocheck2 run sorts 20,000
	}
	must(t, e.SetGlobal("order", killer(n)))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := e.DoStringContext(ctx, `local t = {} for i, v in ipairs(order) do t[i] = v end
		table.sort(t) while true do end`)
	if over := time.Since(start) - 50*time.Millisecond; over > 500*time.Millisecond {
		t.Errorf("ran %v past the deadline", over)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("crafted sort: %v", err)
	}
	// fewer elements, each comparison long: 4,096 strings sharing an 8 KB
	// prefix, in the crafted order (7-8 s past the deadline while only
	// tables of more than 4,096 elements got the comparator; probe K2)
	must(t, e.SetGlobal("order", killer(4096)))
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	run(t, e, `local p = string.rep("x", 8000) strs = {}
		for i, v in ipairs(order) do strs[i] = p .. string.format("%08d", v) end`)
	start = time.Now()
	err = e.DoStringContext(ctx2, `table.sort(strs) while true do end`)
	if over := time.Since(start) - 50*time.Millisecond; over > 500*time.Millisecond {
		t.Errorf("strings: ran %v past the deadline", over)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("crafted sort of strings: %v", err)
	}
}

// TestLongSortsInLimitedCallsSortAsStock: the comparator a long sort gets
// inside a limited call changes nothing a script sees: the order, and
// the error for values that do not compare.
func TestLongSortsInLimitedCallsSortAsStock(t *testing.T) {
	e := newEnv(t)
	script := `
		local t = {} for i = 1, 5000 do t[i] = (i * 7919) % 5003 end
		table.sort(t)
		local ok = true for i = 2, #t do ok = ok and t[i - 1] <= t[i] end
		local m = {} for i = 1, 5000 do m[i] = i end m[2500] = "x"
		local _, err = pcall(table.sort, m)
		local s = {} for i = 1, 5000 do s[i] = tostring(i) end
		table.sort(s)
		result = tostring(ok) .. "|" .. t[1] .. "|" .. t[5000] .. "|" .. tostring(err) .. "|" .. s[1] .. s[5000]`
	run(t, e, script)
	plain := global[string](t, e, "result")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, script))
	if limited := global[string](t, e, "result"); limited != plain || !strings.HasPrefix(plain, "true|") {
		t.Errorf("inside a limited call:\n%s\noutside:\n%s", limited, plain)
	}
}
