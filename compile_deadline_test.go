package zlua_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// slowToCompile is a chunk whose compilation takes seconds though it is
// a few hundred KB: each of m references to a global searches the locals
// of every one of d enclosing functions (190 each).
func slowToCompile(d, m int) string {
	var names []string
	for i := 1; i <= 190; i++ {
		names = append(names, "l"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
	}
	decl := "local " + strings.Join(names, ",") + " "
	var b strings.Builder
	for i := 0; i < d; i++ {
		b.WriteString(decl + "return function() ")
	}
	b.WriteString(decl + "z = " + strings.Repeat("g+", m) + "g ")
	for i := 0; i < d; i++ {
		b.WriteString(" end")
	}
	return b.String()
}

// TestDeadlineStopsACompilation: a limited call gives the parser its
// chunk in pieces and raises the interruption between two, so a chunk
// crafted to compile slowly stops at the deadline, whether the host
// compiles it (DoStringContext) or the script does (the sandbox's load).
// Before, one compilation ran 6-10 s past a 100 ms deadline on Lua 5.4
// and 1-3 s on LuaJIT (probe P2 F2).
func TestDeadlineStopsACompilation(t *testing.T) {
	src := slowToCompile(60, 200000)
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("src", src))
	for name, chunk := range map[string]string{
		"host":   src,
		"script": `local f, err = load(src) error(err, 0)`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		start := time.Now()
		err := e.DoStringContext(ctx, chunk)
		cancel()
		over := time.Since(start) - 100*time.Millisecond
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "interrupted: context deadline exceeded") {
			t.Errorf("%s: %v", name, err)
		}
		if over > 700*time.Millisecond {
			t.Errorf("%s: the compilation ran %v past the deadline", name, over)
		}
	}
}

// TestLimitedLoadsReadAsPlainOnes: a chunk loaded in pieces (inside a
// limited call) compiles to what the whole chunk does: the same results,
// the same chunk names in errors, the same syntax errors.
func TestLimitedLoadsReadAsPlainOnes(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	body := "local t = {}\n" + strings.Repeat("t[#t + 1] = 'piece'\n", 300) + "return #t, t[300]"
	must(t, e.SetGlobal("good", body))
	must(t, e.SetGlobal("bad", body+"\nlocal = 1"))
	must(t, e.SetGlobal("late", body+"\nerror('late')"))
	must(t, e.SetGlobal("envd", strings.Repeat("local a = 1\n", 200)+"return x"))
	script := `
		local f = assert(load(good))
		local n, s = f()
		local _, bad = load(bad)
		local _, late = pcall(load(late))
		local _, named = pcall(load(late, "=named"))
		local inenv = load(envd, "=envd", "t", {x = "env"})()
		result = table.concat({n, s, bad, late, named, inenv}, "|")`
	run(t, e, script)
	plain := global[string](t, e, "result")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	must(t, e.DoStringContext(ctx, script))
	if limited := global[string](t, e, "result"); limited != plain || !strings.HasPrefix(plain, "300|piece|") {
		t.Errorf("inside a limited call:\n%s\noutside:\n%s", limited, plain)
	}
	// the host's chunks too
	hostErr := func(run func(string) error) string {
		err := run(body + "\nlocal = 1")
		if err == nil {
			return ""
		}
		return err.Error()
	}
	a := hostErr(e.DoString)
	b := hostErr(func(s string) error { return e.DoStringContext(ctx, s) })
	if a != b || a == "" {
		t.Errorf("syntax errors differ: %q limited, %q plain", b, a)
	}
}

// TestHooksStayOnAfterAnInterruptedLoad: the sandbox's load, interrupted
// while it compiles, leaves the hooks on, so the next limited call stops
// at its deadline too. (Given to LuaJIT's load as a reader function, the
// pieces made the hurried hook raise inside the reader's call, which left
// every hook of the state off: the next loop ran forever.)
func TestHooksStayOnAfterAnInterruptedLoad(t *testing.T) {
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer e.Close()
	must(t, e.SetGlobal("src", slowToCompile(60, 200000)))
	for i := 0; i < 2; i++ {
		for _, chunk := range []string{
			`local ok, f, err = pcall(load, src) local x = 0 while true do x = x + 1 end`,
			`local x = 0 while true do x = x + 1 end`,
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			done := make(chan error, 1)
			go func() { done <- e.DoStringContext(ctx, chunk) }()
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%s: %v", chunk, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s ran on past its deadline (hooks off?)", chunk)
			}
			cancel()
		}
	}
}
