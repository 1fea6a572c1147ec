package bench

import (
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/zlua-go/zlua"
	"github.com/zlua-go/zlua/bench/native"
)

// The three implementations of the frame workloads (frame_test.go).

// zluaFrame: entities are *Entity pushed by zlua (exported fields and
// methods bound automatically); events go through typed function handles.
// Entity's scalar methods are declared leaf (init below), as a user would
// declare hot methods that never call back into Lua: on LuaJIT compiled
// code calls them through the FFI. Two variants run the same frame with
// another view of the same structs: zluaNoLeaf with EntityNoLeaf (the
// methods undeclared), zluaMethods (method-style frame only) with
// EntityMethods (the fields hidden from Lua).
type zluaFrame struct {
	env                *zlua.Env
	w                  *world
	frameFn            func(float64) error
	kind               zluaEntityKind
	onSpawn, onDespawn func(*Entity) error
	// the variants' event handlers
	onSpawnN, onDespawnN func(*EntityNoLeaf) error
	onSpawnM, onDespawnM func(*EntityMethods) error
}

// zluaEntityKind is the Go type a zlua frame row pushes its entities as.
type zluaEntityKind int

const (
	entityPlain   zluaEntityKind = iota // *Entity
	entityNoLeaf                        // *EntityNoLeaf
	entityMethods                       // *EntityMethods
)

func init() {
	if err := zlua.Leaf[*Entity]("Position", "Move", "Damage", "Hit", "Neighbour"); err != nil {
		panic(err)
	}
	if err := zlua.Leaf[*EntityMethods]("Position", "Move", "Damage", "Hit", "Neighbour"); err != nil {
		panic(err)
	}
}

// EntityNoLeaf is Entity with the same methods, none declared leaf.
type EntityNoLeaf Entity

func (e *EntityNoLeaf) Position() (float64, float64) { return (*Entity)(e).Position() }
func (e *EntityNoLeaf) Move(dx, dy float64)          { (*Entity)(e).Move(dx, dy) }
func (e *EntityNoLeaf) Damage(n int) bool            { return (*Entity)(e).Damage(n) }
func (e *EntityNoLeaf) Hit(n int)                    { (*Entity)(e).Hit(n) }
func (e *EntityNoLeaf) Neighbour() *EntityNoLeaf {
	return (*EntityNoLeaf)((*Entity)(e).Neighbour())
}

// EntityMethods is Entity with its fields hidden from Lua (lua:"-"), its
// methods declared leaf as Entity's: scripts see the four methods only,
// as the native C and gopher-lua entities of the method-style frame
// have them. A type without Lua fields indexes its methods table
// directly; one with fields has a C __index (on Lua 5.4 a C call per
// method lookup). The same struct as Entity but for the tags, so a
// *Entity converts to it.
type EntityMethods struct {
	ID       int     `lua:"-"`
	X, Y, VX float64 `lua:"-"`
	HP       int     `lua:"-"`
	world    *world
	index    int
}

func (e *EntityMethods) Position() (float64, float64) { return (*Entity)(e).Position() }
func (e *EntityMethods) Move(dx, dy float64)          { (*Entity)(e).Move(dx, dy) }
func (e *EntityMethods) Damage(n int) bool            { return (*Entity)(e).Damage(n) }
func (e *EntityMethods) Hit(n int)                    { (*Entity)(e).Hit(n) }
func (e *EntityMethods) Neighbour() *EntityMethods {
	return (*EntityMethods)((*Entity)(e).Neighbour())
}

func openZluaFrame(bh frameBehaviour, n int) (frameSim, error) { return openZlua(bh, n, entityPlain) }

func openZluaNoLeafFrame(bh frameBehaviour, n int) (frameSim, error) {
	return openZlua(bh, n, entityNoLeaf)
}

func openZluaMethodsFrame(bh frameBehaviour, n int) (frameSim, error) {
	return openZlua(bh, n, entityMethods)
}

func openZlua(bh frameBehaviour, n int, kind zluaEntityKind) (frameSim, error) {
	env, err := zlua.New(zlua.Options{PumpBudget: 10000})
	if err != nil {
		return nil, err
	}
	s := &zluaFrame{env: env, w: &world{}, kind: kind}
	if err := s.setup(bh, n); err != nil {
		env.Close()
		return nil, err
	}
	return s, nil
}

func (s *zluaFrame) setup(bh frameBehaviour, n int) error {
	if err := s.env.DoString(bh.script); err != nil {
		return err
	}
	fns := map[string]any{"frame": &s.frameFn, "on_spawn": &s.onSpawn, "on_despawn": &s.onDespawn}
	switch s.kind {
	case entityNoLeaf:
		fns["on_spawn"], fns["on_despawn"] = &s.onSpawnN, &s.onDespawnN
	case entityMethods:
		fns["on_spawn"], fns["on_despawn"] = &s.onSpawnM, &s.onDespawnM
	}
	for name, p := range fns {
		if err := s.env.GetFunction(name, p); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		if err := s.spawned(s.w.spawn()); err != nil {
			return err
		}
	}
	return nil
}

// spawned and despawned deliver the events as the row's entity type.
func (s *zluaFrame) spawned(e *Entity) error {
	switch s.kind {
	case entityNoLeaf:
		return s.onSpawnN((*EntityNoLeaf)(e))
	case entityMethods:
		return s.onSpawnM((*EntityMethods)(e))
	}
	return s.onSpawn(e)
}

func (s *zluaFrame) despawned(e *Entity) error {
	switch s.kind {
	case entityNoLeaf:
		return s.onDespawnN((*EntityNoLeaf)(e))
	case entityMethods:
		return s.onDespawnM((*EntityMethods)(e))
	}
	return s.onDespawn(e)
}

func (s *zluaFrame) frame(f int) error {
	if err := s.frameFn(frameDT); err != nil {
		return err
	}
	for k := range churn(len(s.w.ents)) {
		if err := s.despawned(s.w.despawn(churnIndex(f, k, len(s.w.ents)))); err != nil {
			return err
		}
		if err := s.spawned(s.w.spawn()); err != nil {
			return err
		}
	}
	return s.env.Pump()
}

func (s *zluaFrame) digest() (frameDigest, error) {
	d := s.w.digest()
	err := s.env.Global("count", &d.LuaCount)
	return d, err
}

func (s *zluaFrame) reportStats(b *testing.B) {
	st := s.env.Stats()
	b.ReportMetric(float64(st.LiveObjects), "live-slots")
	if st.ObjectPushes > 0 {
		b.ReportMetric(100*float64(st.CacheHits)/float64(st.ObjectPushes), "cache-hit-%")
	}
}

func (s *zluaFrame) close() { s.env.Close() }

// gopherFrame: entities are LUserData holding *Entity, one per entity
// (kept in a map so the same entity is the same Lua value); methods are
// LGFunctions in an __index table, or, field-style, a hand-written
// __index/__newindex switch. Events go through CallByParam.
type gopherFrame struct {
	L  *lua.LState
	w  *world
	ud map[*Entity]*lua.LUserData
	mt *lua.LTable
}

func openGopherFrame(bh frameBehaviour, n int) (frameSim, error) {
	s := &gopherFrame{L: lua.NewState(), w: &world{}, ud: map[*Entity]*lua.LUserData{}}
	if err := s.setup(bh, n); err != nil {
		s.L.Close()
		return nil, err
	}
	return s, nil
}

func (s *gopherFrame) push(e *Entity) lua.LValue {
	u, ok := s.ud[e]
	if !ok {
		u = s.L.NewUserData()
		u.Value = e
		s.L.SetMetatable(u, s.mt)
		s.ud[e] = u
	}
	return u
}

// self is the receiver of a method or metamethod.
func (s *gopherFrame) self(L *lua.LState) *Entity {
	e, ok := L.CheckUserData(1).Value.(*Entity)
	if !ok {
		L.ArgError(1, "Entity expected")
	}
	return e
}

func (s *gopherFrame) setup(bh frameBehaviour, n int) error {
	L := s.L
	s.mt = L.NewTypeMetatable("Entity")
	if bh.fields {
		s.bindFields()
	} else {
		L.SetField(s.mt, "__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
			"Position": func(L *lua.LState) int {
				x, y := s.self(L).Position()
				L.Push(lua.LNumber(x))
				L.Push(lua.LNumber(y))
				return 2
			},
			"Move": func(L *lua.LState) int {
				s.self(L).Move(float64(L.CheckNumber(2)), float64(L.CheckNumber(3)))
				return 0
			},
			"Neighbour": func(L *lua.LState) int { L.Push(s.push(s.self(L).Neighbour())); return 1 },
			"Damage": func(L *lua.LState) int {
				L.Push(lua.LBool(s.self(L).Damage(L.CheckInt(2))))
				return 1
			},
		}))
	}
	if err := L.DoString(bh.script); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := s.call("on_spawn", s.push(s.w.spawn())); err != nil {
			return err
		}
	}
	return nil
}

// bindFields installs the field-style metatable: X, VX and HP through a
// Go __index/__newindex switch, Hit returned by __index.
func (s *gopherFrame) bindFields() {
	L := s.L
	hit := L.NewFunction(func(L *lua.LState) int { s.self(L).Hit(L.CheckInt(2)); return 0 })
	L.SetField(s.mt, "__index", L.NewFunction(func(L *lua.LState) int {
		e := s.self(L)
		switch k := L.CheckString(2); k {
		case "X":
			L.Push(lua.LNumber(e.X))
		case "VX":
			L.Push(lua.LNumber(e.VX))
		case "HP":
			L.Push(lua.LNumber(e.HP))
		case "Hit":
			L.Push(hit)
		default:
			L.RaiseError("Entity has no field or method %q", k)
		}
		return 1
	}))
	L.SetField(s.mt, "__newindex", L.NewFunction(func(L *lua.LState) int {
		e := s.self(L)
		switch k := L.CheckString(2); k {
		case "X":
			e.X = float64(L.CheckNumber(3))
		case "VX":
			e.VX = float64(L.CheckNumber(3))
		case "HP":
			e.HP = L.CheckInt(3)
		default:
			L.RaiseError("Entity has no field %q", k)
		}
		return 0
	}))
}

func (s *gopherFrame) call(name string, args ...lua.LValue) error {
	return s.L.CallByParam(lua.P{Fn: s.L.GetGlobal(name), NRet: 0, Protect: true}, args...)
}

func (s *gopherFrame) frame(f int) error {
	if err := s.call("frame", lua.LNumber(frameDT)); err != nil {
		return err
	}
	for k := range churn(len(s.w.ents)) {
		e := s.w.despawn(churnIndex(f, k, len(s.w.ents)))
		if err := s.call("on_despawn", s.push(e)); err != nil {
			return err
		}
		delete(s.ud, e)
		if err := s.call("on_spawn", s.push(s.w.spawn())); err != nil {
			return err
		}
	}
	return nil
}

func (s *gopherFrame) digest() (frameDigest, error) {
	d := s.w.digest()
	c, ok := s.L.GetGlobal("count").(lua.LNumber)
	if !ok {
		return d, fmt.Errorf("gopher-lua: count is %s", s.L.GetGlobal("count").Type())
	}
	d.LuaCount = int(c)
	return d, nil
}

func (s *gopherFrame) close() { s.L.Close() }

// nativeFrame: the world and its entities are C (bench/native); each
// event is one cgo call, as each zlua event is one handle call.
type nativeFrame struct {
	s *native.State
	w *native.World
}

func openNativeFrame(bh frameBehaviour, n int) (frameSim, error) {
	s, err := native.Open()
	if err != nil {
		return nil, err
	}
	if err := s.DoString(bh.script); err != nil {
		s.Close()
		return nil, err
	}
	w, err := s.NewWorld(bh.fields)
	if err != nil {
		s.Close()
		return nil, err
	}
	sim := &nativeFrame{s, w}
	for i := 0; i < n; i++ {
		if err := w.Spawn(); err != nil {
			sim.close()
			return nil, err
		}
	}
	return sim, nil
}

func (s *nativeFrame) frame(f int) error {
	if err := s.w.Frame(frameDT); err != nil {
		return err
	}
	for k := range churn(s.w.Len()) {
		if err := s.w.Despawn(churnIndex(f, k, s.w.Len())); err != nil {
			return err
		}
		if err := s.w.Spawn(); err != nil {
			return err
		}
	}
	return nil
}

func (s *nativeFrame) digest() (frameDigest, error) {
	d := frameDigest{Hits: s.w.Hits(), Len: s.w.Len()}
	d.SumX, d.SumHP = s.w.Sums()
	count, err := s.s.Number("count")
	d.LuaCount = int(count)
	return d, err
}

func (s *nativeFrame) close() {
	s.w.Free()
	s.s.Close()
}
