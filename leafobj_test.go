package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// LeafNode's methods returning one pointer are declared leaf in init: on
// LuaJIT the object comes back from the FFI call without the trampoline
// when its userdata lives (the identity cache holds it).
type LeafNode struct {
	ID   int
	Next *LeafNode
	Pal  *LeafPal
	Env  *zlua.Env
	Made int
}

// LeafPal is a type no Env has bound before a LeafNode method returns one.
type LeafPal struct{ Name string }

func (n *LeafNode) Step() *LeafNode { return n.Next }
func (n *LeafNode) Hop(k int) *LeafNode {
	m := n
	for ; k > 0 && m != nil; k-- {
		m = m.Next
	}
	return m
}
func (n *LeafNode) Make(id int) *LeafNode { n.Made++; return &LeafNode{ID: id} }
func (n *LeafNode) Friend() *LeafPal      { return n.Pal }
func (n *LeafNode) Find(id int) (*LeafNode, error) {
	for m, k := n, 0; m != nil && k < 64; m, k = m.Next, k+1 {
		if m.ID == id {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no node %d", id)
}
func (n *LeafNode) Boom() *LeafNode  { panic("boom") }
func (n *LeafNode) Sneak() *LeafNode { _ = n.Env.DoString("x = 1"); return n }

func init() {
	if err := zlua.Leaf[*LeafNode]("Step", "Hop", "Make", "Friend", "Find", "Boom", "Sneak"); err != nil {
		panic(err)
	}
}

// ring pushes three nodes a -> b -> c -> a as globals a, b and c.
func ring(t *testing.T, e *zlua.Env) (a, b, c *LeafNode) {
	t.Helper()
	a, b, c = &LeafNode{ID: 1, Env: e}, &LeafNode{ID: 2, Env: e}, &LeafNode{ID: 3, Env: e}
	a.Next, b.Next, c.Next = b, c, a
	a.Pal = &LeafPal{Name: "pal"}
	must(t, e.SetGlobal("a", a))
	must(t, e.SetGlobal("b", b))
	must(t, e.SetGlobal("c", c))
	return a, b, c
}

// On LuaJIT a leaf method returning an object whose userdata lives hands
// that userdata back without the C closure and, called directly (amd64),
// without zlua_jit_finish: the dispatch path of other architectures runs
// the method's plan, whose push program finish runs for plans without a
// pointer fast path (Hop's). On Lua 5.4 every call is the trampoline's.
// Identity holds on both.
func TestLeafObjectResultsComeBackWithoutTheTrampoline(t *testing.T) {
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			defer zlua.LeafDirect(zlua.LeafDirect(direct))
			e := newEnv(t)
			ring(t, e)
			names := []string{"cfn"}
			if direct {
				names = append(names, "finish")
			}
			n := closureCalls(t, e, `local closures = {a.Step, a.Hop}`, `
				local x = a
				for i = 1, 300 do x = x:Step() end
				assert(rawequal(x, a))
				for i = 1, 100 do
					assert(rawequal(a:Hop(2), c) and rawequal(c:Hop(1), a))
				end`, names...)
			if onLuaJIT {
				if n != 0 {
					t.Errorf("LuaJIT: 500 object results took %d calls of %v, want 0", n, names)
				}
			} else if n != 500 {
				t.Errorf("Lua 5.4: 500 leaf calls made %d calls of the C closures, want 500", n)
			}
		})
	}
}

// Object results whose userdata does not live (a new object, one whose
// userdata was collected, a type not yet bound, nil) are pushed as the
// trampoline pushes them, with identity from then on; errors, panics and
// broken promises are those of the C path.
func TestLeafObjectResultsThatNeedLua(t *testing.T) {
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			defer zlua.LeafDirect(zlua.LeafDirect(direct))
			e := newEnv(t)
			a, _, c := ring(t, e)
			run(t, e, `
				-- new objects: pushed by finish, the same userdata after
				local made = {}
				for i = 1, 50 do
					local m = a:Make(i)
					assert(m.ID == i, "made " .. tostring(m.ID))
					made[i] = m
				end
				-- a type the Env had not bound: the first call binds it
				for i = 1, 20 do
					local p = a:Friend()
					assert(p.Name == "pal" and rawequal(p, a:Friend()))
				end
				assert(b:Friend() == nil and c:Friend() == nil)
				-- the userdata of b collected: a new one, then identity
				b = nil
				collectgarbage(); collectgarbage()
				for i = 1, 20 do
					local x = a:Step()
					assert(x.ID == 2 and rawequal(x, a:Step()) and rawequal(x:Step(), c))
				end
				-- errors and panics
				for i = 1, 20 do
					assert(rawequal(a:Find(3), c))
					local ok, err = pcall(a.Find, a, 99)
					assert(not ok and err:find("no node 99", 1, true), err)
					ok, err = pcall(a.Boom, a)
					assert(not ok and err:find("boom", 1, true), err)
					ok, err = pcall(a.Sneak, a)
					assert(not ok and err:find("declared leaf and cannot call into its Env", 1, true), err)
				end`)
			if a.Made != 50 {
				t.Errorf("Make ran %d times, want 50", a.Made)
			}
			c.Next = nil
			run(t, e, `for i = 1, 20 do assert(c:Step() == nil and c:Hop(5) == nil) end`)
			err := e.DoString(`a:Boom()`)
			var pe *zlua.PanicError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "boom") {
				t.Errorf("uncaught panic of a leaf object method: %v", err)
			}
		})
	}
}

// A script that reaches the identity cache (debug.getregistry) and puts
// other values at an object's slot, or replaces the registry's entry,
// gets the right object all the same, as the trampoline's push would
// (the entry is checked against the slot's live userdata; identity is
// what such a script gives up).
func TestLeafObjectResultsSurviveATamperedCache(t *testing.T) {
	e := newEnv(t)
	ring(t, e)
	run(t, e, `
		local reg = debug.getregistry()
		local cache, key, slot
		for k, v in pairs(reg) do
			if type(v) == "table" then
				for s, u in pairs(v) do
					if rawequal(u, b) then cache, key, slot = v, k, s end
				end
			end
		end
		assert(cache, "no identity cache found")
		for _, bogus in ipairs({a, 42, {}, "b", print}) do
			cache[slot] = bogus
			for i = 1, 20 do
				local x = a:Step()
				assert(x.ID == 2 and not rawequal(x, a), "got " .. tostring(x))
			end
		end
		reg[key] = {}
		for i = 1, 20 do
			local x = c:Step():Step()
			assert(x.ID == 2 and c:Step().ID == 1)
		end`)
}

// A leaf method may return one pointer (an object), not a handle: those
// are pushed as their Lua values (the pointer with another result is in
// TestLeafDeclarationErrors).
func TestLeafObjectResultDeclarations(t *testing.T) {
	err := zlua.Leaf[*leafBadPtr]("Fn")
	if err == nil || !strings.Contains(err.Error(), "method Fn: result 1 is *zlua.Function (a leaf method returns numbers and booleans, or one pointer)") {
		t.Errorf("a handle result declared leaf: %v", err)
	}
}

type leafBadPtr struct{}

func (*leafBadPtr) Fn() *zlua.Function { return nil }
