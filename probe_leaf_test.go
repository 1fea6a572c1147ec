package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

type opaqueColor struct{ R, G, B uint8 }

// A leaf method is a plain function in its type's methods table: a
// sandboxed script can call it with any receiver. An opaque handle is a
// light userdata (type "userdata" like an object), which the FFI passes as
// its value: the leaf path read a header at that address and crashed the
// process on LuaJIT. It is refused like any bad self, also when the script
// replaced the globals the leaf closures use before its first leaf type was
// bound.
func TestLeafMethodOnAnOpaqueHandleIsBadSelf(t *testing.T) {
	for _, replaced := range []bool{false, true} {
		e := newEnvWith(t, zlua.Options{Libs: zlua.LibsSafe})
		if replaced {
			run(t, e, `
				local realtype = type
				type = function(v) if realtype(v) == "userdata" then return "userdata" end return realtype(v) end
				getmetatable = function() return "zlua: protected metatable" end`)
		}
		must(t, e.SetGlobal("w", &Leafer{HP: 10}))
		run(t, e, `
			function probe(h)
				assert(type(h) == "userdata")
				local out = {}
				for _, m in ipairs({w.Position, w.Move, w.Damage, w.Nothing}) do
					for i = 1, 3 do
						local ok, err = pcall(m, h, 1, 2)
						assert(not ok, "a leaf method accepted an opaque handle")
						out[#out + 1] = err
					end
				end
				return table.concat(out, "\n")
			end`)
		var probe func(any) (string, error)
		must(t, e.GetFunction("probe", &probe))
		c := opaqueColor{R: 1}
		msgs, err := probe(zlua.Opaque(&c))
		if err != nil {
			t.Fatalf("replaced globals %v: %v", replaced, err)
		}
		for _, m := range strings.Split(msgs, "\n") {
			if !strings.Contains(m, "on bad self (Leafer expected, got opaque handle)") {
				t.Errorf("replaced globals %v: %q", replaced, m)
			}
		}
		run(t, e, `w:Move(1, 2); local x, y = w:Position(); assert(x == 1 and y == 2)`)
	}
}

// probeNilErr is an error type whose nil pointer panics in Error: a common
// Go mistake (returning a typed nil as error).
type probeNilErr struct{ msg string }

func (e *probeNilErr) Error() string { return e.msg }

// probePanicky's Error panics.
type probePanicky struct{}

func (probePanicky) Error() string { panic("Error panicked") }

type leafErrs struct{ N int }

func (l *leafErrs) TypedNil(n int) (int, error) {
	if n == 1 {
		var e *probeNilErr
		return 0, e
	}
	return n, nil
}

func (l *leafErrs) Panicky(n int) (int, error) {
	if n == 1 {
		return 0, probePanicky{}
	}
	return n, nil
}

func init() {
	if err := zlua.Leaf[*leafErrs]("TypedNil", "Panicky"); err != nil {
		panic(err)
	}
}

// A leaf method whose error panics when it is formatted (a typed nil
// pointer, an Error method that panics) raises the panic as any Go
// function does. On LuaJIT the FFI path formatted the error after its
// recovery had ended: the panic unwound through LuaJIT's C frames and
// the process died.
func TestLeafErrorWhosePrintingPanicsIsAPanicError(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("l", &leafErrs{}))
	run(t, e, `
		for i = 1, 3 do
			local ok, err = pcall(l.TypedNil, l, 1)
			assert(not ok and err == "go function 'leafErrs:TypedNil' panicked: runtime error: invalid memory address or nil pointer dereference", err)
			ok, err = pcall(l.Panicky, l, 1)
			assert(not ok and err == "go function 'leafErrs:Panicky' panicked: Error panicked", err)
			assert(l:TypedNil(2) == 2 and l:Panicky(3) == 3)
		end`)
}

// The base functions the leaf closures take (LuaJIT) sit in a registry
// table a LibsAll script can replace through debug.getregistry before the
// first leaf type is bound: the methods then keep the C path, no crash
// (indexing the replaced entry as a table read garbage).
func TestLeafClosuresSurviveATamperedRegistry(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		local reg = debug.getregistry()
		for k, v in pairs(reg) do
			if type(v) == "table" and rawget(v, 1) == type and rawget(v, 2) == getmetatable then
				reg[k] = 42
			end
		end`)
	must(t, e.SetGlobal("w", &Leafer{X: 2, Y: 3}))
	run(t, e, `
		for i = 1, 3 do
			local x, y = w:Position()
			assert(x == 2 and y == 3)
			local ok, err = pcall(w.Position, 1)
			assert(not ok and err:find("bad self", 1, true), err)
		end`)
}
