package zlua_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zlua-go/zlua"
)

func richConfig() dConfig {
	c := wantConfig()
	c.Secret = "hidden from Lua"
	c.hidden = 3
	c.Extra = map[string]any{"deep": []any{int64(1), "two"}}
	return c
}

// AsTable pushes a struct as a plain table copy: fields by Lua name,
// nested structs as tables, slices as sequences, maps as tables.
func TestAsTablePushesAPlainCopy(t *testing.T) {
	e := newEnv(t)
	c := richConfig()
	must(t, e.SetGlobal("cfg", zlua.AsTable(c)))
	run(t, e, `
		assert(type(cfg) == "table" and getmetatable(cfg) == nil)
		assert(cfg.title == "arena" and cfg["max-hp"] == 90)
		assert(cfg.Title == nil and cfg.MaxHP == nil, "tags rename")
		assert(cfg.Secret == nil and cfg.hidden == nil, "lua:\"-\" and unexported fields are omitted")
		assert(cfg.ID == 7 and cfg.Owner == "ann" and cfg.Speed == 2.5, "promoted fields")
		assert(cfg.DecodeStats == nil, "embedded structs are flattened")
		assert(type(cfg.Spawn) == "table" and cfg.Spawn.X == 1 and cfg.Spawn.Y == 2)
		assert(type(cfg.Home) == "table" and cfg.Home.X == 3, "pointers are followed")
		assert(#cfg.Weapons == 2 and cfg.Weapons[1].Name == "sword" and cfg.Weapons[1].Tags[1] == "sharp")
		assert(cfg.Weapons[2].Tags == nil, "nil slices are nil")
		assert(#cfg.Slots == 2 and cfg.Slots[2].Name == "" and cfg.Slots[2].Damage == 0)
		assert(cfg.ByName.axe.Damage == 9 and cfg.Refs.r.Name == "ref")
		assert(cfg.Grid[1][2] == 2 and cfg.Grid[2][1] == 3 and cfg.Flags.fly == true)
		assert(cfg.Extra.deep[2] == "two" and cfg.Meta.a.b.c == "d")
		cfg.title = "changed"; cfg.Spawn.X = 100; cfg.Weapons[1].Damage = 0
	`)
	if c.Title != "arena" || c.Spawn.X != 1 || c.Weapons[0].Damage != 5 {
		t.Errorf("changing the Lua copy changed Go: %+v", c)
	}
	// The same names decode back.
	run(t, e, `cfg.title = "arena"; cfg.Spawn.X = 1; cfg.Weapons[1].Damage = 5`)
	back := global[dConfig](t, e, "cfg")
	c.Secret, c.hidden = "", 0
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip\n%+v\nwant\n%+v", back, c)
	}
}

// AsTable works as a Function argument, a typed-func argument and a Go
// function's result; a pointer and a slice of structs become tables too.
func TestAsTableAsArgumentAndResult(t *testing.T) {
	e := newEnv(t)
	c := richConfig()
	must(t, e.SetGlobal("getcfg", func() any { return zlua.AsTable(&c) }))
	must(t, e.SetGlobal("getnil", func() any { return zlua.AsTable((*dConfig)(nil)) }))
	must(t, e.SetGlobal("points", zlua.AsTable([]dVec2{{1, 2}, {3, 4}})))
	run(t, e, `
		local c = getcfg()
		assert(type(c) == "table" and c.Weapons[2].Name == "bow")
		assert(getnil() == nil)
		assert(type(points[2]) == "table" and points[2].Y == 4)
		function weapons(c) return #c.Weapons, type(c) end
	`)
	var f *zlua.Function
	must(t, e.GetFunction("weapons", &f))
	defer f.Release()
	res, err := f.Call(zlua.AsTable(c))
	if err != nil || !reflect.DeepEqual(res, []any{int64(2), "table"}) {
		t.Errorf("Call(AsTable(c)) = %v, %v", res, err)
	}
	var typed func(any) (int, string, error)
	must(t, e.GetFunction("weapons", &typed))
	if n, typ, err := typed(zlua.AsTable(&c)); err != nil || n != 2 || typ != "table" {
		t.Errorf("typed func(AsTable(&c)) = %d, %q, %v", n, typ, err)
	}
	// Without AsTable the struct is a userdata, as before.
	if _, typ, _ := typed(c); typ != "userdata" {
		t.Errorf("plain struct argument became %q", typ)
	}
}

type dStamped struct {
	At    time.Time
	Mu    *sync.Mutex
	Count func() int
	Ch    chan int
	Note  *string
}

// Values without a plain form keep their usual one: structs without
// Lua-visible fields (time.Time), pointers to them, functions, channels.
// Other pointers are followed.
func TestAsTableKeepsOtherValuesUsualForm(t *testing.T) {
	e := newEnv(t)
	note := "n"
	s := dStamped{At: time.Unix(0, 0), Mu: &sync.Mutex{}, Count: func() int { return 3 }, Ch: make(chan int), Note: &note}
	must(t, e.SetGlobal("s", zlua.AsTable(s)))
	run(t, e, `
		assert(type(s) == "table")
		assert(type(s.At) == "userdata" and type(s.Mu) == "userdata" and type(s.Ch) == "userdata")
		assert(s.Count() == 3 and s.Note == "n")
	`)
}

type dLoop struct {
	Name string
	Next *dLoop
}

func TestAsTableRefusesCycles(t *testing.T) {
	e := newEnv(t)
	l := &dLoop{Name: "a"}
	l.Next = l
	err := e.SetGlobal("l", zlua.AsTable(l))
	if err == nil || !strings.Contains(err.Error(), "value nesting too deep") {
		t.Errorf("AsTable(cycle) = %v", err)
	}
	var x any
	x = &x
	if err := e.SetGlobal("x", zlua.AsTable(x)); err == nil || !strings.Contains(err.Error(), "value nesting too deep") {
		t.Errorf("AsTable(pointer cycle without tables) = %v", err)
	}
	run(t, e, `assert(l == nil and x == nil)`)
}
