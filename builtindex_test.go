package zlua_test

import (
	"reflect"
	"runtime"
	"testing"
	"weak"

	"github.com/zlua-go/zlua"
)

// echoBackEnv is storeEnv with Go functions that hand back what a script
// passed, with the objects built from its tables nested inside.
func echoBackEnv(t *testing.T) *zlua.Env {
	t.Helper()
	e, _ := storeEnv(t)
	must(t, e.SetGlobal("eslice", func(s []*chargeEntity) []*chargeEntity { return s }))
	must(t, e.SetGlobal("emap", func(m map[string]*chargeEntity) map[string]*chargeEntity { return m }))
	must(t, e.SetGlobal("elink", func(l chargeLink) chargeLink { return l }))
	must(t, e.SetGlobal("eplink", func(l *chargeLink) *chargeLink { return l }))
	must(t, e.SetGlobal("eany", func(v []any) []any { return v }))
	must(t, e.SetGlobal("first", func(s []*chargeEntity) *chargeEntity { return s[0] }))
	must(t, e.SetGlobal("box", &chargeBox{}))
	must(t, e.SetGlobal("count", func(s []*chargeEntity) int { return len(s) }))
	must(t, e.SetGlobal("eref", func(s []*chargeEntity) any { return zlua.ByRef(s) }))
	must(t, e.SetGlobal("erefmap", func(m map[string]string) any { return zlua.ByRef(m) }))
	must(t, e.SetGlobal("erefbytes", func(b []byte) any { return zlua.ByRef(b) }))
	must(t, e.SetGlobal("view", func(x *chargeEntity) any { return zlua.AsView[chargeNamer](x) }))
	must(t, e.SetGlobal("unview", func(x chargeNamer) *chargeEntity { return x.(*chargeEntity) }))
	must(t, e.SetGlobal("wrap", func(x *chargeEntity) chargeLink { return chargeLink{Next: x} }))
	return e
}

// chargeBox keeps what a script gives it and hands back what that holds
// (a method returning a pointer: the typed return path).
type chargeBox struct{ e *chargeEntity }

// Set keeps e.
func (b *chargeBox) Set(e *chargeEntity) { b.e = e }

// Inner returns the object the kept one names.
func (b *chargeBox) Inner() *chargeEntity { return b.e.Owner }

// Objects built from a script's tables nested in an argument, which a Go
// function hands back inside a slice, a map, a copy or another object,
// count toward the limit wherever the script keeps them (probe R, p3b:
// each of these loops kept 1.1 GB under a 16 MiB limit).
func TestObjectsNestedInArgumentsCountTowardTheMemoryLimit(t *testing.T) {
	const setup = `local s = string.rep("n", 65536) keep = {} `
	for name, loop := range map[string]string{
		"in a slice":                  `for i = 1, 6400 do keep[i] = eslice({{Name = s .. i}}) end`,
		"an element of a slice":       `for i = 1, 6400 do keep[i] = eslice({{Name = s .. i}})[1] end`,
		"in a map":                    `for i = 1, 6400 do keep[i] = emap({k = {Name = s .. i}}).k end`,
		"in a copy's pointer field":   `for i = 1, 6400 do keep[i] = elink({Next = {Name = s .. i}}) end`,
		"in an object, read back":     `for i = 1, 6400 do keep[i] = eplink({Next = {Name = s .. i}}).Next end`,
		"nested in a nested object":   `for i = 1, 6400 do keep[i] = pecho({Owner = {Owner = {Name = s .. i}}}).Owner.Owner end`,
		"handed back by another call": `for i = 1, 6400 do keep[i] = first({{Name = s .. i}, {Name = "b"}}) end`,
		// more than a quarter of the limit built by one call (probe T
		// F1: the notes used to be dropped past that)
		"past a quarter of the limit": `local t = {} for j = 1, 50 do t[j] = {Name = s} end
			for i = 1, 600 do local r = eslice(t) for j = 1, 10 do keep[#keep + 1] = r[j] end end`,
		// what an argument built, handed back by reference (F3)
		"a slice by reference": `for i = 1, 6400 do keep[i] = eref({{Name = s .. i}}) end`,
		"a map by reference":   `for i = 1, 6400 do keep[i] = erefmap({k = s .. i}) end`,
		"bytes by reference":   `for i = 1, 6400 do keep[i] = erefbytes(s .. i) end`,
		// got back, then held by a value of another shape or view (probe U)
		"stored in an any field":       `for i = 1, 6400 do local x = spawn(); x.IA = {A = pecho({Name = s .. i})}; keep[i] = x end`,
		"stored in a slice field":      `for i = 1, 6400 do local h = spawn(); h.Many = {pecho({Name = s .. i})}; keep[i] = h end`,
		"a built slice stored":         `for i = 1, 6400 do local h = spawn(); h.Many = eref({{Name = s .. i}}); keep[i] = h end`,
		"in a copy a Go function made": `for i = 1, 6400 do keep[i] = wrap(pecho({Name = s .. i})) end`,
		"in a copy of the script's":    `for i = 1, 6400 do keep[i] = elink({Next = pecho({Name = s .. i})}) end`,
		"under a view":                 `for i = 1, 6400 do keep[i] = view(pecho({Name = s .. i})) end`,
		"back from a view":             `for i = 1, 6400 do keep[i] = unview(view({Name = s .. i})) end`,
		// an inline struct read from a built object keeps all of it (F2)
		"an inline struct of one": `for i = 1, 6400 do keep[i] = pecho({Name = s .. i}).Info end`,
		// not an argument's: a store's, handed back the same way
		"a store's, by a method":       `for i = 1, 6400 do local x = spawn(); x.Owner = {Name = s .. i}; box:Set(x); keep[i] = box:Inner(); x.Owner = nil end`,
		"stored into a host object":    `for i = 1, 6400 do local x = spawn(); x.Owner = eslice({{Name = s .. i}})[1]; keep[i] = x end`,
		"stored into a copy's pointer": `for i = 1, 6400 do local m = mklink(); m.Next = eslice({{Name = s .. i}})[1]; keep[i] = m end`,
	} {
		t.Run(name, func(t *testing.T) {
			e := echoBackEnv(t)
			defer func() { must(t, e.Close()) }()
			mustReachTheLimit(t, e, setup+loop)
			mustSettleToZero(t, e)
		})
	}
}

// A nested object read back in a later call is charged to the script's
// userdata, and stays charged after the object holding it is dropped.
func TestNestedObjectsReadBackLaterAreCharged(t *testing.T) {
	e := echoBackEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `held = pecho({Owner = {Name = string.rep("l", 300000)}})`)
	if got := e.Stats().CopyBytes; got < 300000 {
		t.Fatalf("the outer object held: CopyBytes %d", got)
	}
	must(t, e.Pump())
	run(t, e, `inner = held.Owner held = nil collectgarbage() collectgarbage()`)
	must(t, e.Pump())
	run(t, e, `local x = 1`)
	if got := e.Stats().CopyBytes; got < 300000 || got >= 600000 {
		t.Errorf("the nested object held alone: CopyBytes %d", got)
	}
	settleStores(t, e)
	run(t, e, `inner = nil`)
	mustSettleToZero(t, e)
}

// mustSettleToZero fails t unless the charges are all given back once
// Lua and Go collected (settleStores).
func mustSettleToZero(t *testing.T, e *zlua.Env) {
	t.Helper()
	settleStores(t, e)
	if got := e.Stats().CopyBytes; got != 0 {
		t.Errorf("all dropped: CopyBytes %d", got)
	}
}

// Nested objects a script reads and drops, and values the charges do not
// concern (small objects, interfaces holding numbers), never exhaust the
// limit: 1,000 times the limit passes through these loops.
func TestNestedObjectChargesLeaveGarbageAlone(t *testing.T) {
	e := echoBackEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `local s = string.rep("g", 65536)
		for i = 1, 2000 do local o = eslice({{Name = s .. i}})[1] end
		for i = 1, 2000 do local l = elink({Next = {Name = s .. i}}) end
		for i = 1, 2000 do local o = eplink({Next = {Name = s .. i}}).Next end
		for i = 1, 20000 do local v = eany({i, "x", {Name = "small"}}) end`)
	mustSettleToZero(t, e)
}

// The notes keep nothing alive: an object a Go function took and dropped
// is collectable once that Go call returned, within the same outermost
// call, and after it.
func TestBuiltObjectNotesKeepNothingAlive(t *testing.T) {
	e := echoBackEnv(t)
	defer func() { must(t, e.Close()) }()
	var first weak.Pointer[chargeEntity]
	late := false
	must(t, e.SetGlobal("take", func(s []*chargeEntity, i int) int {
		if i == 1 {
			first = weak.Make(s[0])
		}
		if i == 200 {
			runtime.GC()
			late = first.Value() != nil
		}
		return len(s)
	}))
	run(t, e, `local s = string.rep("k", 65536) for i = 1, 200 do take({{Name = s .. i}}, i) end`)
	if late {
		t.Error("199 calls later in the same outermost call, the first object is alive")
	}
	run(t, e, `take({{Name = string.rep("k", 65536)}}, 1)`)
	runtime.GC()
	if first.Value() != nil {
		t.Error("the call that built it returned: the object is alive")
	}
}

// hostThing is an object type no script table is converted into.
type hostThing struct{ ID int }

// A copy's walk looks at pointers only of the types objects were built
// as: a host struct returned by value with a slice of a million pointers
// to its own objects is not walked element by element because a script
// passed a table for another type.
func TestCopyWalksLookOnlyAtTypesBuiltFromTables(t *testing.T) {
	e := echoBackEnv(t)
	defer func() { must(t, e.Close()) }()
	type inPlace struct {
		A, B *chargeEntity
	}
	type hostPair struct{ P, Q *hostThing }
	cases := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[*chargeEntity](), true},
		{reflect.TypeFor[inPlace](), true},
		{reflect.TypeFor[[2]*chargeEntity](), true},
		{reflect.TypeFor[*hostThing](), false},
		{reflect.TypeFor[hostPair](), false},
		{reflect.TypeFor[[3]hostPair](), false},
		{reflect.TypeFor[string](), true}, // it reaches bytes
	}
	run(t, e, `local o = eslice({{Name = string.rep("w", 300)}})[1]`)
	for _, c := range cases {
		if got := zlua.CopyWalksElemsOf(e, c.t); got != c.want {
			t.Errorf("%v: walked %v, want %v", c.t, got, c.want)
		}
	}
}

// chargeNamer is a view of chargeEntity.
type chargeNamer interface{ Named() string }

// Named returns the entity's name.
func (e *chargeEntity) Named() string { return e.Name }
