package zlua_test

import (
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// Ownership by address (cgo/ownaddr.c): the keyed userdata of a slot is
// proved to be zlua's by its address instead of its metatable. These tests
// watch the table of proved addresses (zlua.OwnAddrs) from Lua, reading a
// userdata's address with %p (Lua 5.4) or an FFI cast (LuaJIT).

// addrLib defines addr(u), the payload address of the full userdata u,
// and owned(u), whether the env's address table proves u.
const addrLib = `
	function addr(u)
		if jit then
			local ffi = require("ffi")
			return tonumber(ffi.cast("uintptr_t", ffi.cast("void *", u)))
		end
		return tonumber(string.format("%p", u))
	end
	function owned(u) return proved(addr(u)) end
`

// newAddrEnv is a LibsAll Env with addrLib and its Go helper proved.
func newAddrEnv(t *testing.T) *zlua.Env {
	e := newEnv(t)
	if block, _ := zlua.OwnAddrLayout(e); block == 0 {
		t.Fatal("the ByObj userdata layout was not measured: the address proof is off")
	}
	must(t, e.SetGlobal("proved", func(a float64) bool {
		for _, p := range zlua.OwnAddrs(e) {
			if p == uintptr(a) {
				return true
			}
		}
		return false
	}))
	run(t, e, addrLib)
	return e
}

func TestAddressProofFollowsSlotReuse(t *testing.T) {
	e := newAddrEnv(t)
	must(t, e.SetGlobal("held", &Player{Name: "a", HP: 3}))
	run(t, e, `
		assert(owned(held), "the keyed userdata is not proved by its address")
		assert(held:Hurt(1) == true and held:Health() == 2)
		old = addr(held)
		held = nil
		collectgarbage() collectgarbage()`)
	run(t, e, `assert(not proved(old), "a collected userdata is still proved by its address")`)
	if n := len(zlua.OwnAddrs(e)); n != 0 {
		t.Fatalf("%d addresses proved after the only object was collected", n)
	}
	// The freed slot is reused: its new userdata is proved, and only it.
	must(t, e.SetGlobal("again", &Player{Name: "b", HP: 5}))
	run(t, e, `
		assert(owned(again), "the userdata of a reused slot is not proved by its address")
		assert(again:Hurt(1) == true and again:Health() == 4)
		assert(again == again and again.Name == "b")`)
	if n := len(zlua.OwnAddrs(e)); n != 1 {
		t.Fatalf("%d addresses proved, want 1", n)
	}
}

func TestCopiedHeaderAtAnotherAddressIsNotProved(t *testing.T) {
	e := newAddrEnv(t)
	p := &Player{Name: "p", HP: 3}
	must(t, e.SetGlobal("held", p))
	// Without its identity cache zlua pushes the same object as a new
	// userdata: the same header bytes (slot, generation, binding) at
	// another address.
	run(t, e, `
		local reg = debug.getregistry()
		for k, v in pairs(reg) do
			local mt = type(v) == "table" and getmetatable(v)
			if mt and mt.__mode == "v" then -- the weak identity cache
				for _, u in pairs(v) do if rawequal(u, held) then reg[k] = 42 end end
			end
		end`)
	must(t, e.SetGlobal("copy", p))
	run(t, e, `
		assert(not rawequal(copy, held) and owned(held) and not owned(copy))
		assert(copy:Health() == 3, "the copy with zlua's metatable is still the object")
		local mt = debug.getmetatable(copy)
		debug.setmetatable(copy, {__name = "Fake"})
		local ok, err = pcall(held.Hurt, copy, 1)
		debug.setmetatable(copy, mt) -- its __gc releases its count
		assert(not ok and err:find("bad self %(Player expected, got Fake%)"), tostring(err))
		assert(held:Health() == 3, "the forged receiver reached the object")`)
}

func TestDebugSetmetatableTakesAnObjectOffTheAddressProof(t *testing.T) {
	e := newAddrEnv(t)
	must(t, e.SetGlobal("held", &Player{Name: "p", HP: 3}))
	run(t, e, `
		assert(owned(held))
		local mt = debug.getmetatable(held)
		local r = debug.setmetatable(held, mt)
		assert(r == (jit and true or held), "debug.setmetatable returned " .. tostring(r))
		assert(not owned(held), "an object whose metatable was set is still proved by its address")
		assert(held:Hurt(1) == true and held:Health() == 2, "the metatable path lost the object")
		local t = debug.setmetatable({}, {__index = {k = 1}})
		assert((jit and true or t.k == 1))
		assert(debug.setmetatable(5, nil) == (jit and true or 5))
		local ok, err = pcall(debug.setmetatable, held, 2)
		assert(not ok and err:find("bad argument #2 to '[%w.?]+' %(nil or table expected"), err)
		assert(owned(held) == false and held:Health() == 2)`)
}

func TestObjectFreedWithoutItsFinalizerLeavesTheAddressProof(t *testing.T) {
	e, err := zlua.New(zlua.Options{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, e.SetGlobal("proved", func(a float64) bool {
		for _, p := range zlua.OwnAddrs(e) {
			if p == uintptr(a) {
				return true
			}
		}
		return false
	}))
	run(t, e, addrLib)
	must(t, e.SetGlobal("u", &Player{Name: "u"}))
	// Its metatable loses __gc (a script can do that to zlua's own table
	// with debug.getmetatable): the userdata dies without zlua_obj_gc,
	// and only the allocator sees its block go.
	run(t, e, `
		assert(owned(u))
		old = addr(u)
		local mt = debug.getmetatable(u)
		local gc = mt.__gc
		mt.__gc = nil
		u = nil
		for i = 1, 4 do collectgarbage() end
		mt.__gc = gc
		assert(not proved(old), "a freed userdata is still proved by its address")`)
	before := zlua.LeakedSlotsSoFar()
	must(t, e.Close())
	// Its slot never got its count back: Close reports it, on purpose.
	if n := zlua.LeakedSlotsSoFar() - before; n != 1 {
		t.Fatalf("%d slots leaked, want the 1 whose userdata died without __gc", n)
	}
	zlua.ForgiveLeakedSlots(1)
}

// On LuaJIT a LibsAll script can write memory with the FFI: it copies a
// live object's 32 bytes, header and all, into another 32-byte userdata
// (a ByVal empty struct's), which it strips of its metatable. The copy is
// byte for byte what zlua wrote, at another address: the address proof
// must refuse it, and so must the metatable check behind it.
func TestByteExactCopyOfAnObjectIsNotProved(t *testing.T) {
	if !strings.HasPrefix(zlua.Backend, "LuaJIT") {
		t.Skip("needs the FFI to write a userdata's bytes (LuaJIT); TestCopiedHeaderAtAnotherAddressIsNotProved covers Lua 5.4")
	}
	e := newAddrEnv(t)
	must(t, e.SetGlobal("held", &Player{Name: "p", HP: 3}))
	must(t, e.SetGlobal("blank", struct{}{}))
	run(t, e, `
		local ffi = require("ffi")
		local fake = blank
		blank = nil
		debug.setmetatable(fake, nil)
		ffi.copy(ffi.cast("void *", fake), ffi.cast("void *", held), 32)
		assert(ffi.string(ffi.cast("void *", fake), 32) == ffi.string(ffi.cast("void *", held), 32))
		assert(owned(held) and not owned(fake), "the byte copy is proved by its address")
		local ok, err = pcall(held.Hurt, fake, 1)
		assert(not ok and err:find("bad self %(Player expected, got userdata%)"), tostring(err))
		assert(held:Health() == 3, "the forged receiver reached the object")
		assert(held ~= fake)`)
}
