package zlua_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

// Types for decoding tests: a config with every shape a table decodes into.

type dVec2 struct{ X, Y float64 }

type dWeapon struct {
	Name   string
	Damage int
	Tags   []string
}

type dBase struct {
	ID    int
	Owner string
}

type DecodeStats struct {
	Speed float64
}

type dConfig struct {
	dBase               // promoted fields: id, owner
	*DecodeStats        // promoted through a pointer: allocated when a key needs it
	Title        string `lua:"title"`
	MaxHP        int    `lua:"max-hp"`
	Secret       string `lua:"-"`
	Spawn        dVec2  // nested struct
	Home         *dVec2 // pointer to struct: allocated
	Weapons      []dWeapon
	Slots        [2]dWeapon
	ByName       map[string]dWeapon
	Refs         map[string]*dWeapon
	Grid         [][]int
	Flags        map[string]bool
	Extra        any
	Meta         map[string]any
	List         []any
	hidden       int
}

const dConfigChunk = `cfg = {
	id = 7, owner = "ann", speed = 2.5,
	title = "arena", ["max-hp"] = 90, Secret = "no", hidden = 3,
	spawn = {x = 1, y = 2},
	home = {X = 3},
	weapons = {{name = "sword", damage = 5, tags = {"sharp"}}, {name = "bow", damage = "7"}},
	slots = {{name = "a"}},
	byName = {axe = {damage = 9}},
	refs = {r = {name = "ref"}},
	grid = {{1, 2}, {3}},
	flags = {fly = true},
	extra = {deep = {deeper = {1, 2}}},
	meta = {a = {b = {c = "d"}}, n = 1},
	list = {{k = "v"}, {1, 2}},
	unknown = {1, 2, 3}, [1] = "positional", [true] = "odd key",
}`

func wantConfig() dConfig {
	return dConfig{
		dBase:       dBase{ID: 7, Owner: "ann"},
		DecodeStats: &DecodeStats{Speed: 2.5},
		Title:       "arena",
		MaxHP:       90,
		Spawn:       dVec2{1, 2},
		Home:        &dVec2{X: 3},
		Weapons:     []dWeapon{{Name: "sword", Damage: 5, Tags: []string{"sharp"}}, {Name: "bow", Damage: 7}},
		Slots:       [2]dWeapon{{Name: "a"}},
		ByName:      map[string]dWeapon{"axe": {Damage: 9}},
		Refs:        map[string]*dWeapon{"r": {Name: "ref"}},
		Grid:        [][]int{{1, 2}, {3}},
		Flags:       map[string]bool{"fly": true},
		Extra:       map[string]any{"deep": map[string]any{"deeper": []any{int64(1), int64(2)}}},
		Meta:        map[string]any{"a": map[string]any{"b": map[string]any{"c": "d"}}, "n": int64(1)},
		List:        []any{map[string]any{"k": "v"}, []any{int64(1), int64(2)}},
	}
}

func TestTableDecodesIntoStructEveryShape(t *testing.T) {
	e := newEnv(t)
	run(t, e, dConfigChunk)
	got := global[dConfig](t, e, "cfg")
	if want := wantConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
	}
	// A *struct out-value gets a new struct; missing keys leave zero values.
	p := &dConfig{Title: "old", MaxHP: 1}
	old := p
	if err := e.Global("cfg", &p); err != nil {
		t.Fatal(err)
	}
	if p == old || p.Title != "arena" || old.Title != "old" {
		t.Errorf("*struct out-value: %p %q (old %p %q)", p, p.Title, old, old.Title)
	}
	run(t, e, `small = {title = "t"}`)
	c := wantConfig()
	must(t, e.Global("small", &c))
	if !reflect.DeepEqual(c, dConfig{Title: "t"}) {
		t.Errorf("missing keys did not leave zero values: %+v", c)
	}
}

func TestTableDecodesIntoStructParameters(t *testing.T) {
	e := newEnv(t)
	var got []dVec2
	must(t, e.SetGlobal("place", func(v dVec2) float64 { got = append(got, v); return v.X + v.Y }))
	must(t, e.SetGlobal("placep", func(v *dVec2) { got = append(got, *v) }))
	must(t, e.SetGlobal("path", func(vs ...dVec2) int { got = append(got, vs...); return len(vs) }))
	must(t, e.SetGlobal("route", func(vs []dVec2, m map[string]dVec2) { got = append(got, vs...); got = append(got, m["k"]) }))
	run(t, e, `
		assert(place({X = 1, Y = 2}) == 3)
		placep({x = 3, y = 4})
		assert(path({x = 5}, {y = 6}) == 2)
		route({{x = 7}}, {k = {y = 8}})
	`)
	want := []dVec2{{1, 2}, {3, 4}, {5, 0}, {0, 6}, {7, 0}, {0, 8}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// ByVal userdata and ByObj pointers keep their meaning where a table now
// also decodes.
func TestUserdataKeepTheirMeaningWhereTablesDecode(t *testing.T) {
	e := newEnv(t)
	var gotp *dVec2
	var gotv dVec2
	must(t, e.SetGlobal("byptr", func(v *dVec2) { gotp = v }))
	must(t, e.SetGlobal("byval", func(v dVec2) { gotv = v }))
	p := &dVec2{X: 1}
	must(t, e.SetGlobal("p", p))
	must(t, e.SetGlobal("v", dVec2{Y: 2}))
	run(t, e, `byptr(p)`)
	if gotp != p {
		t.Errorf("ByObj *T: got %p, want the same pointer %p", gotp, p)
	}
	run(t, e, `byval(v)`)
	if gotv != (dVec2{Y: 2}) {
		t.Errorf("ByVal T: got %v", gotv)
	}
	err := e.DoString(`byptr(v)`)
	if err == nil || !strings.Contains(err.Error(), "(*dVec2 expected, got dVec2 value (a copy has no Go address))") {
		t.Errorf("ByVal to *T: %v", err)
	}
	// Handles are not structs to decode into.
	must(t, e.SetGlobal("fn", func(f *zlua.Function) {}))
	if err := e.DoString(`fn({})`); err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'fn' (function expected, got table)") {
		t.Errorf("*Function from a table: %v", err)
	}
	// A struct without Lua-visible fields does not become its zero value.
	must(t, e.SetGlobal("at", func(time.Time) {}))
	if err := e.DoString(`at({year = 2024})`); err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'at' (Time expected, got table)") {
		t.Errorf("time.Time from a table: %v", err)
	}
}

type dCase struct {
	Name  string
	HP    int `lua:"hp"`
	ID    int
	Id    int // ID and Id fold alike: only exact names reach them
	MaxHP int
}

// Keys match the Lua name exactly, else without regard to ASCII case; an
// exact key wins over a case-insensitive one whatever the traversal order.
func TestTableDecodeCaseRules(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		a = {name = "lower", HP = 1, ID = 2, Id = 3, maxhp = 4}
		b = {NAME = "upper", maxHp = 5, id = 9, health = 6, max_hp = 7}
		c1 = {Name = "exact"}; c1.name = "fold"
		c2 = {name = "fold"}; c2.Name = "exact"
	`)
	if got := global[dCase](t, e, "a"); got != (dCase{Name: "lower", HP: 1, ID: 2, Id: 3, MaxHP: 4}) {
		t.Errorf("a: %+v", got)
	}
	if got := global[dCase](t, e, "b"); got != (dCase{Name: "upper", MaxHP: 5}) {
		t.Errorf("b (id is ambiguous, snake_case and Go names of tagged fields do not match): %+v", got)
	}
	for _, name := range []string{"c1", "c2"} {
		if got := global[dCase](t, e, name); got.Name != "exact" {
			t.Errorf("%s: exact key lost to a case-insensitive one: %+v", name, got)
		}
	}
}

type dHero struct {
	Name string
	Pos  dVec2
	Path []dVec2
}

func (h *dHero) Teleport(v dVec2) { h.Pos = v }

func (v dVec2) Add(o dVec2) dVec2 { return dVec2{v.X + o.X, v.Y + o.Y} }

type dLine struct{ A, B dVec2 }

// A table decodes wherever a struct is expected: object fields, ByVal
// fields, method arguments, ByRef elements, typed-func results.
func TestTableDecodesWhereverAStructIsExpected(t *testing.T) {
	e := newEnv(t)
	h := &dHero{}
	path := []dVec2{{}, {}}
	must(t, e.SetGlobal("hero", h))
	must(t, e.SetGlobal("line", dLine{}))
	must(t, e.SetGlobal("path", zlua.ByRef(path)))
	must(t, e.SetGlobal("v", dVec2{X: 1}))
	run(t, e, `
		hero.Pos = {x = 1, y = 2}
		hero.Path = {{x = 3}, {y = 4}}
		path[2] = {x = 5, y = 6}
		line.A = {x = 7}
		assert(line.A.X == 7)
		local w = v:Add({x = 10, y = 1})
		assert(w.X == 11 and w.Y == 1)
		hero:Teleport({x = 8, y = 9})
		function spawn(n) return {name = "orc" .. n, pos = {x = n}} end
		function spawnp(n) return {name = "elf", path = {{y = n}}}, "extra" end
	`)
	if h.Pos != (dVec2{8, 9}) || !reflect.DeepEqual(h.Path, []dVec2{{X: 3}, {Y: 4}}) {
		t.Errorf("object fields: %+v", h)
	}
	if path[1] != (dVec2{5, 6}) {
		t.Errorf("ByRef element: %v", path)
	}
	var spawn func(int) (dHero, error)
	must(t, e.GetFunction("spawn", &spawn))
	got, err := spawn(3)
	if err != nil || got.Name != "orc3" || got.Pos != (dVec2{X: 3}) {
		t.Errorf("typed-func struct result: %+v, %v", got, err)
	}
	var spawnp func(int) (*dHero, string)
	must(t, e.GetFunction("spawnp", &spawnp))
	if p, s := spawnp(4); p == nil || p.Name != "elf" || !reflect.DeepEqual(p.Path, []dVec2{{Y: 4}}) || s != "extra" {
		t.Errorf("typed-func *struct result: %+v, %q", p, s)
	}
}

// Nested tables reaching any keep the natural form all the way down:
// []any for sequences, map[string]any when every key is a string,
// map[any]any otherwise; a declared map[any]any keeps any keys below it.
func TestTablesNaturalFormAllTheWayDown(t *testing.T) {
	e := newEnv(t)
	run(t, e, `
		obj = {a = {b = {c = 1}}, list = {{x = "y"}}}
		mixed = {1, 2, k = "v"}
		sparse = {[1] = "a", [3] = "c"}
		empty = {}
		function results() return {k = {1, {z = true}}}, {[2.5] = "f"} end
	`)
	cases := []struct {
		name string
		out  any
		want any
	}{
		{"obj", new(any), map[string]any{"a": map[string]any{"b": map[string]any{"c": int64(1)}}, "list": []any{map[string]any{"x": "y"}}}},
		{"obj", new(map[string]any), map[string]any{"a": map[string]any{"b": map[string]any{"c": int64(1)}}, "list": []any{map[string]any{"x": "y"}}}},
		{"obj", new(map[any]any), map[any]any{"a": map[any]any{"b": map[any]any{"c": int64(1)}}, "list": []any{map[any]any{"x": "y"}}}},
		{"mixed", new(any), map[any]any{int64(1): int64(1), int64(2): int64(2), "k": "v"}},
		{"sparse", new(any), map[any]any{int64(1): "a", int64(3): "c"}},
		{"empty", new(any), map[string]any{}},
		{"empty", new(map[any]any), map[any]any{}},
	}
	for _, c := range cases {
		must(t, e.Global(c.name, c.out))
		if got := reflect.ValueOf(c.out).Elem().Interface(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s into %T: got %#v, want %#v", c.name, c.out, got, c.want)
		}
	}
	var f *zlua.Function
	must(t, e.GetFunction("results", &f))
	defer f.Release()
	res, err := f.Call()
	want := []any{map[string]any{"k": []any{int64(1), map[string]any{"z": true}}}, map[any]any{2.5: "f"}}
	if err != nil || !reflect.DeepEqual(res, want) {
		t.Errorf("Call results: %#v, %v", res, err)
	}
}

// A key whose Go value cannot be a map key (a ByRef slice, a struct copy
// holding a slice) is an error, not a runtime panic.
func TestUnhashableTableKeysAreErrors(t *testing.T) {
	e := newEnv(t)
	must(t, e.SetGlobal("s", zlua.ByRef([]int{1})))
	must(t, e.SetGlobal("rec", dWeapon{Tags: []string{"a"}}))
	must(t, e.SetGlobal("keys", func(m any) {}))
	run(t, e, `bys = {[s] = 1}; byrec = {[rec] = 2}`)
	for _, name := range []string{"bys", "byrec"} {
		for _, out := range []any{new(any), new(map[any]any)} {
			if err := e.Global(name, out); err == nil || !strings.Contains(err.Error(), "key cannot be a Go map key") {
				t.Errorf("Global(%s, %T) = %v", name, out, err)
			}
		}
	}
	if err := e.DoString(`keys(bys)`); err == nil || !strings.Contains(err.Error(), "bad argument #1 to 'keys' (") ||
		!strings.Contains(err.Error(), "key cannot be a Go map key") {
		t.Errorf("argument: %v", err)
	}
}
