package zlua_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoFileContext: a file run under a context stops at its deadline and
// is read as DoFile reads it (byte order mark, #! line, "path:line").
func TestDoFileContext(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.lua")
	must(t, os.WriteFile(loop, []byte("#!/usr/bin/env lua\nlocal x = 0\nwhile true do x = x + 1 end\n"), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := e.DoFileContext(ctx, loop)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), loop+":3: interrupted: context deadline exceeded") {
		t.Fatalf("DoFileContext of a loop: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the loop ran %v", d)
	}

	bom := filepath.Join(dir, "bom.lua")
	must(t, os.WriteFile(bom, []byte("\xEF\xBB\xBFanswer = 42\nerror('x')\n"), 0o644))
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	if err := e.DoFileContext(ctx2, bom); err == nil || !strings.HasSuffix(err.Error(), bom+":2: x") {
		t.Errorf("DoFileContext of an erring file: %v", err)
	}
	if global[int](t, e, "answer") != 42 {
		t.Errorf("the file did not run")
	}
	// a context that is never done runs it as DoFile does
	must(t, os.WriteFile(bom, []byte("\xEF\xBB\xBFanswer = 43\n"), 0o644))
	must(t, e.DoFileContext(context.Background(), bom))
	if global[int](t, e, "answer") != 43 {
		t.Errorf("the file did not run without a deadline")
	}

	if err := e.DoFileContext(ctx2, filepath.Join(dir, "missing.lua")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	done, cancel3 := context.WithCancel(context.Background())
	cancel3()
	if err := e.DoFileContext(done, bom); !errors.Is(err, context.Canceled) {
		t.Errorf("context done before: %v", err)
	}
}
