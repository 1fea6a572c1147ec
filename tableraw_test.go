package zlua_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// TestTableRawAccess: RawGet, RawSet and RawLen bypass __index,
// __newindex and __len, as rawget, rawset and rawlen do; Metatable and
// SetMetatable read and replace a metatable as debug.getmetatable and
// debug.setmetatable do (before, Go had no way around a proxy's
// metamethods nor to a metatable without running Lua: probe P1 F4).
func TestTableRawAccess(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		log = {}
		proxy = setmetatable({1, 2, own = "raw"}, {
			__index = function(_, k) return "meta " .. tostring(k) end,
			__newindex = function(_, k, v) log[#log + 1] = k end,
			__len = function() return 99 end,
			__metatable = "locked",
		})`)
	var p *zlua.Table
	must(t, e.Global("proxy", &p))
	defer p.Release()
	var s string
	must(t, p.Get("missing", &s))
	if s != "meta missing" {
		t.Errorf("Get: %q", s)
	}
	var v any
	must(t, p.RawGet("missing", &v))
	must(t, p.RawGet("own", &s))
	if v != nil || s != "raw" {
		t.Errorf("RawGet: %v %q", v, s)
	}
	must(t, p.RawSet("added", 5))
	must(t, p.Set("logged", 6))
	run(t, e, `assert(rawget(proxy, "added") == 5 and rawget(proxy, "logged") == nil and log[1] == "logged" and #log == 1)`)
	n, err := p.Len()
	must(t, err)
	rn, err := p.RawLen()
	must(t, err)
	if n != 99 || rn != 2 {
		t.Errorf("Len %d, RawLen %d", n, rn)
	}
	must(t, p.RawSet(rn+1, "three"))
	run(t, e, `assert(rawget(proxy, 3) == "three")`)
	if rn, _ := p.RawLen(); rn != 3 {
		t.Errorf("RawLen after an append: %d", rn)
	}
	if err := p.RawSet(nil, 1); err == nil || !strings.Contains(err.Error(), "index is nil") {
		t.Errorf("RawSet(nil): %v", err)
	}

	// the metatable itself, past __metatable
	mt, err := p.Metatable()
	must(t, err)
	var locked string
	must(t, mt.RawGet("__metatable", &locked))
	if locked != "locked" {
		t.Errorf("Metatable: __metatable %q", locked)
	}
	plain, err := e.NewTable()
	must(t, err)
	defer plain.Release()
	none, err := plain.Metatable()
	if err != nil || none != nil {
		t.Errorf("Metatable of a plain table: %v, %v", none, err)
	}
	must(t, plain.SetMetatable(mt)) // shared, as setmetatable would
	must(t, e.SetGlobal("plain", plain))
	run(t, e, `assert(getmetatable(plain) == "locked" and plain.x == "meta x")`)
	mt.Release()
	must(t, p.SetMetatable(nil)) // removed although protected
	run(t, e, `assert(getmetatable(proxy) == nil and proxy.missing == nil)`)

	// handles of another Env, released handles
	other := newEnv(t)
	foreign, err := other.NewTable()
	must(t, err)
	defer foreign.Release()
	if err := plain.SetMetatable(foreign); err == nil || !strings.Contains(err.Error(), "table handle of another Env") {
		t.Errorf("SetMetatable of another Env's table: %v", err)
	}
	gone, err := e.NewTable()
	must(t, err)
	gone.Release()
	if err := gone.RawSet(1, 1); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("RawSet on a released handle: %v", err)
	}
	if _, err := gone.RawLen(); !errors.Is(err, zlua.ErrReleased) {
		t.Errorf("RawLen on a released handle: %v", err)
	}
	if err := plain.RawGet("x", nil); err == nil || !strings.Contains(err.Error(), "out must be a non-nil pointer") {
		t.Errorf("RawGet into nil: %v", err)
	}
}
