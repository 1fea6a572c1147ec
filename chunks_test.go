package zlua_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

func TestEval(t *testing.T) {
	e := newEnv(t)
	run(t, e, `a, b = 40, 2`)
	var sum int
	must(t, e.Eval(`a + b`, &sum))
	if sum != 42 {
		t.Errorf("Eval(a + b) = %d", sum)
	}
	var x, y int
	var z any = "untouched"
	must(t, e.Eval(`b, a`, &x, &y, &z)) // a missing result reads as nil
	if x != 2 || y != 40 || z != nil {
		t.Errorf("Eval(b, a) = %d %d %v", x, y, z)
	}
	var s string
	must(t, e.Eval(`local t = {} for i = 1, 3 do t[i] = i end return table.concat(t, ","), "extra"`, &s))
	if s != "1,2,3" {
		t.Errorf("statements with return = %q", s)
	}
	must(t, e.Eval(`c = a * b`)) // statements, no results
	var c int
	must(t, e.Global("c", &c))
	if c != 80 {
		t.Errorf("c = %d", c)
	}
	var tb *zlua.Table
	must(t, e.Eval(`{n = 1}`, &tb))
	var n int
	if err := tb.Get("n", &n); err != nil || n != 1 {
		t.Errorf("table result = %d, %v", n, err)
	}

	var le *zlua.LuaError
	if err := e.Eval(`x = = 1`); !errors.As(err, &le) || !strings.HasPrefix(le.Message, "(eval):1:") {
		t.Errorf("syntax error = %v", err)
	}
	if err := e.Eval(`nope()`); !errors.As(err, &le) || !strings.HasPrefix(le.Message, "(eval):1: attempt to call") {
		t.Errorf("runtime error = %v", err)
	}
	if err := e.Eval(`"x"`, &n); err == nil || err.Error() != `zlua: eval: result #1: number expected, got string` {
		t.Errorf("conversion error = %v", err)
	}
	if err := e.Eval(`1`, n); err == nil || err.Error() != `zlua: eval: out #1 must be a non-nil pointer, got int` {
		t.Errorf("non-pointer out = %v", err)
	}
}

// LoadString compiles without running, under the name given; DoString's
// chunk is "(dostring)".
func TestLoadStringNamesChunks(t *testing.T) {
	e := newEnv(t)
	f, err := e.LoadString("main", "local a = ...\nprobe = a\nif a == 'boom' then error('boom') end\nreturn a .. '!'")
	must(t, err)
	var probe any
	must(t, e.Global("probe", &probe))
	if probe != nil {
		t.Error("LoadString ran the chunk")
	}
	if out, err := f.Call("hi"); err != nil || out[0] != "hi!" {
		t.Errorf("Call = %v, %v", out, err)
	}
	var le *zlua.LuaError
	if _, err := f.Call("boom"); !errors.As(err, &le) || le.Message != "main:3: boom" || !strings.Contains(le.Traceback, "main:3:") {
		t.Errorf("runtime error = %v (traceback %q)", err, le.Traceback)
	}
	for name, want := range map[string]string{
		"scripts/ai.lua": "scripts/ai.lua:1:", "@scripts/ai.lua": "scripts/ai.lua:1:",
		"=raw name": "raw name:1:", "": "(load):1:",
	} {
		_, err := e.LoadString(name, "x = = 1")
		if !errors.As(err, &le) || !strings.HasPrefix(le.Message, want) || !strings.HasPrefix(err.Error(), "zlua: load ") {
			t.Errorf("LoadString(%q) syntax error = %v, want prefix %q", name, err, want)
		}
	}
	if err := e.DoString("\n\nerror('x')"); !errors.As(err, &le) || le.Message != "(dostring):3: x" {
		t.Errorf("DoString error = %v", err)
	}
}

// DoFile reads files as luaL_loadfilex does: BOM and a first # line
// skipped, also before a precompiled chunk where the Libs mode allows one;
// the chunk is named after the path.
func TestDoFileLoadsLikeLuaLoadfile(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	must(t, e.DoFile(write("bom.lua", "\xEF\xBB\xBFbom = debug.getinfo(1, 'l').currentline")))
	must(t, e.DoFile(write("bomsh.lua", "\xEF\xBB\xBF#!/usr/bin/lua\nbomsh = debug.getinfo(1, 'l').currentline")))
	must(t, e.DoFile(write("sh.lua", "#!/usr/bin/lua")))
	var bom, bomsh int
	must(t, e.Global("bom", &bom))
	must(t, e.Global("bomsh", &bomsh))
	if bom != 1 || bomsh != 2 {
		t.Errorf("line numbers: bom %d, bom+# %d", bom, bomsh)
	}
	var dump string
	must(t, e.Eval(`string.dump(function() fromBytecode = 42 end)`, &dump))
	bc := write("sh.luac", "#!/usr/bin/env lua\n"+dump)
	must(t, e.DoFile(bc))
	var v int
	must(t, e.Global("fromBytecode", &v))
	if v != 42 {
		t.Errorf("bytecode after # line: %d", v)
	}
	var le *zlua.LuaError
	err := e.DoFile(write("err.lua", "\n\nerror('here')"))
	if !errors.As(err, &le) || le.Message != filepath.Join(dir, "err.lua")+":3: here" && !strings.HasSuffix(le.Message, "err.lua:3: here") {
		t.Errorf("error position = %v", err)
	}

	safe, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe})
	must(t, err)
	defer safe.Close()
	// The mode check's words are the backend's (5.4: "attempt to load a
	// binary chunk (mode is 't')", LuaJIT: "... with wrong mode").
	if err := safe.DoFile(bc); err == nil || !strings.Contains(err.Error(), "attempt to load") {
		t.Errorf("LibsSafe DoFile of bytecode behind # = %v", err)
	}
	must(t, safe.DoFile(write("safebom.lua", "\xEF\xBB\xBF#!x\nok = true")))
}
