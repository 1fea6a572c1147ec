package zlua_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

// blob is a blittable struct larger than the inline program buffer.
type blob struct {
	ID  int32
	Pad [64 << 10]byte
}

// SetGlobal of the struct type pushed last writes its program in one step
// and runs it without the program loop: the values, their types and their
// independence as copies must be what the general path gives.
func TestSetGlobalOfTheSameStructTypeAgain(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 3; i++ {
		must(t, e.SetGlobal(fmt.Sprintf("v%d", i), Vec3{float64(i), 2, 3}))
	}
	must(t, e.SetGlobal("s", Sample{I8: -8, Pos: Vec3{X: 7}}))
	must(t, e.SetGlobal("v3", Vec3{3, 2, 1}))
	must(t, e.SetGlobal("v0", Vec3{9, 9, 9})) // replaces the first copy
	run(t, e, `
		assert(v0.X == 9 and v1.X == 1 and v2.X == 2 and v3.X == 3 and v3.Z == 1)
		assert(s.I8 == -8 and s.Pos.X == 7)
		assert(v1:Len() > 0 and rawequal(getmetatable(v1), getmetatable(v3)))
		v1.X = 100
		assert(v2.X == 2, "copies are independent")`)
	var back Vec3
	must(t, e.Global("v1", &back))
	if back != (Vec3{100, 2, 3}) {
		t.Errorf("v1 read back as %+v", back)
	}
	big := &blob{ID: 1}
	must(t, e.SetGlobal("b1", *big))
	big.ID = 2
	must(t, e.SetGlobal("b2", *big)) // larger than the inline program copy
	run(t, e, `assert(b1.ID == 1 and b2.ID == 2)`)
}

// The one-step struct path sets the global with lua_settable: a
// metatable on _G sees it (__newindex for a new name, its errors come
// back as SetGlobal's).
func TestSetGlobalOfAStructRunsNewindexOfG(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("warm", Vec3{})) // the type is now the last pushed
	run(t, e, `
		seen = {}
		setmetatable(_G, {__newindex = function(t, k, v)
			if k == "bad" then error("no globals named bad", 0) end
			seen[#seen + 1] = k
			rawset(t, k, v)
		end})`)
	must(t, e.SetGlobal("a", Vec3{X: 1}))
	must(t, e.SetGlobal("a", Vec3{X: 2})) // exists: no __newindex
	must(t, e.SetGlobal("b", Vec3{X: 3}))
	err := e.SetGlobal("bad", Vec3{})
	if err == nil || !strings.Contains(err.Error(), `zlua: set global "bad": no globals named bad`) {
		t.Errorf("SetGlobal(bad) err = %v", err)
	}
	run(t, e, `
		assert(#seen == 2 and seen[1] == "a" and seen[2] == "b", table.concat(seen, ","))
		assert(a.X == 2 and b.X == 3 and rawget(_G, "bad") == nil)
		setmetatable(_G, nil)`)
}

// Out of Lua memory, SetGlobal of a struct is ErrMemory and leaves the
// Env usable; a closed Env is an error, not a crash.
func TestSetGlobalOfAStructUnderTheMemoryLimit(t *testing.T) {
	e := newLimitedEnv(t, 4*mib)
	var b blob
	var err error
	n := 0
	for ; n < 200; n++ {
		b.ID = int32(n)
		if err = e.SetGlobal(fmt.Sprintf("b%d", n), b); err != nil {
			break
		}
	}
	if !errors.Is(err, zlua.ErrMemory) || n < 2 {
		t.Fatalf("after %d blobs err = %v, want ErrMemory", n, err)
	}
	run(t, e, `for i = 0, 199 do _G["b" .. i] = nil end; collectgarbage(); collectgarbage()`)
	must(t, e.SetGlobal("again", b))
	run(t, e, fmt.Sprintf(`assert(again.ID == %d)`, n))

	c := newEnv(t)
	must(t, c.SetGlobal("v", Vec3{}))
	must(t, c.Close())
	if err := c.SetGlobal("v", Vec3{}); err == nil || !strings.Contains(err.Error(), `zlua: set global "v"`) {
		t.Errorf("SetGlobal after Close err = %v", err)
	}
}
