package zlua_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// conformanceFiles reads testdata/<base>.lua and what the stock
// interpreter of this backend printed for it (<base>-lua54.golden or
// <base>-luajit.golden).
func conformanceFiles(t *testing.T, base string) (src, want string) {
	t.Helper()
	name := "testdata/" + base + "-lua54.golden"
	if !strings.HasPrefix(zlua.Backend, "Lua 5.4") {
		name = "testdata/" + base + "-luajit.golden"
	}
	w, err := os.ReadFile(name)
	must(t, err)
	s, err := os.ReadFile("testdata/" + base + ".lua")
	must(t, err)
	return string(s), string(w)
}

// newEnv returns an Env closed at the end of the test.
func newEnv(t testing.TB) *zlua.Env {
	t.Helper()
	e, err := zlua.New(zlua.Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// run runs chunk and fails the test on error.
func run(t testing.TB, e *zlua.Env, chunk string) {
	t.Helper()
	if err := e.DoString(chunk); err != nil {
		t.Fatalf("DoString(%q): %v", chunk, err)
	}
}

// doMaybeLimited runs chunk with DoString, or, when limited, with
// DoStringContext under a context of a minute (a limited call that ends
// long before its deadline: the hook installed, the compiler off on
// LuaJIT).
func doMaybeLimited(e *zlua.Env, chunk string, limited bool) error {
	if !limited {
		return e.DoString(chunk)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return e.DoStringContext(ctx, chunk)
}

// global reads a global of type T.
func global[T any](t testing.TB, e *zlua.Env, name string) T {
	t.Helper()
	var v T
	if err := e.Global(name, &v); err != nil {
		t.Fatalf("Global(%q): %v", name, err)
	}
	return v
}
