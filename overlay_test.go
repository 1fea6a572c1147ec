package zlua_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zlua-go/zlua"
)

type ovNet struct {
	Host string
	Port int
}

type ovLimits struct{ Gold, XP int }

type ovConfig struct {
	Name       string
	MaxPlayers int
	Tags       []string
	Net        ovNet
	Limits     map[string]int
	Backup     *ovNet
	Flat       ovLimits // scalars only: the flat decode path
}

func ovDefaults() ovConfig {
	return ovConfig{
		Name: "default", MaxPlayers: 8, Tags: []string{"a"},
		Net:    ovNet{Host: "localhost", Port: 7777},
		Limits: map[string]int{"gold": 100, "xp": 1},
		Backup: &ovNet{Host: "backup", Port: 7778},
		Flat:   ovLimits{Gold: 5, XP: 6},
	}
}

const ovScript = `config = {
	name = "arena", tags = {"pvp", "ranked"},
	net = {port = 9000},
	limits = {xp = 5},
	backup = {port = 9001},
	flat = {xp = 60},
}`

// Overlay decodes a table over the out's value: the fields, nested
// fields, pointed-to fields and map entries the table does not name keep
// their defaults; slices are replaced; the pointed-to struct and the map
// of the defaults are copies, not changed. Without Overlay the value is
// replaced whole. Global (both paths), Eval, Table.Get and RawGet.
func TestOverlayKeepsWhatTheTableDoesNotName(t *testing.T) {
	e := newEnv(t)
	run(t, e, ovScript+`; holder = {config = config}`)
	want := ovConfig{
		Name: "arena", MaxPlayers: 8, Tags: []string{"pvp", "ranked"},
		Net:    ovNet{Host: "localhost", Port: 9000},
		Limits: map[string]int{"gold": 100, "xp": 5},
		Backup: &ovNet{Host: "backup", Port: 9001},
		Flat:   ovLimits{Gold: 5, XP: 60},
	}
	holder, err := e.Globals()
	must(t, err)
	defer holder.Release()
	var h *zlua.Table
	must(t, holder.Get("holder", &h))
	defer h.Release()
	reads := map[string]func(out any) error{
		"Global":          func(out any) error { return e.Global("config", out) },
		"Global dotted":   func(out any) error { return e.Global("holder.config", out) },
		"Eval":            func(out any) error { return e.Eval("config", out) },
		"Eval second out": func(out any) error { var n int; return e.Eval("1, config", &n, out) },
		"Table.Get":       func(out any) error { return h.Get("config", out) },
		"Table.RawGet":    func(out any) error { return h.RawGet("config", out) },
	}
	for name, read := range reads {
		cfg := ovDefaults()
		oldBackup, oldLimits := cfg.Backup, cfg.Limits
		if err := read(zlua.Overlay(&cfg)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(cfg, want) {
			t.Errorf("%s: overlay gave\n %+v (backup %+v)\nwant\n %+v (backup %+v)", name, cfg, *cfg.Backup, want, *want.Backup)
		}
		if *oldBackup != (ovNet{Host: "backup", Port: 7778}) || oldLimits["xp"] != 1 || len(oldLimits) != 2 {
			t.Errorf("%s: the defaults' pointee or map changed: %+v %v", name, *oldBackup, oldLimits)
		}
		plain := ovDefaults()
		must(t, read(&plain))
		if plain.MaxPlayers != 0 || plain.Net.Host != "" || plain.Limits["gold"] != 0 || plain.Backup.Host != "" || plain.Flat.Gold != 0 {
			t.Errorf("%s: without Overlay the defaults stayed: %+v", name, plain)
		}
	}
}

// A table that does not convert leaves an Overlay out unchanged, its
// pointee and map included; Overlay of a non-pointer is refused like any
// bad out.
func TestOverlayRefusalsChangeNothing(t *testing.T) {
	e := newEnv(t)
	run(t, e, `bad = {name = "x", net = {port = "not a port"}, limits = {xp = 5}, backup = {port = 1}}
		badmap = {name = "x", limits = {xp = {}}, backup = {port = 1}}`)
	for _, name := range []string{"bad", "badmap"} {
		cfg := ovDefaults()
		err := e.Global(name, zlua.Overlay(&cfg))
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		if !reflect.DeepEqual(cfg, ovDefaults()) {
			t.Errorf("%s: refused overlay changed the out: %+v (%v)", name, cfg, err)
		}
	}
	var cfg ovConfig
	for _, err := range []error{
		e.Global("bad", zlua.Overlay(cfg)),
		e.Eval("1", zlua.Overlay(nil)),
	} {
		if err == nil || !strings.Contains(err.Error(), "must be a non-nil pointer") {
			t.Errorf("bad Overlay out: %v", err)
		}
	}
}

// Overlay holds for its own out only: a Go function that the path's
// __index calls on the way, reading another out, replaces that one as
// usual.
func TestOverlayDoesNotReachNestedReads(t *testing.T) {
	e := newEnv(t)
	var inner ovNet
	must(t, e.SetGlobal("peek", func() error {
		inner = ovNet{Host: "kept?", Port: 1}
		return e.Global("other", &inner)
	}))
	run(t, e, `other = {port = 2}
		setmetatable(_G, {__index = function(_, k) peek(); return {config = {net = {port = 3}}} end})`)
	cfg := ovDefaults()
	must(t, e.Global("missing.config", zlua.Overlay(&cfg)))
	if cfg.Net != (ovNet{Host: "localhost", Port: 3}) || cfg.MaxPlayers != 8 {
		t.Errorf("overlay after a nested read: %+v", cfg)
	}
	if inner != (ovNet{Port: 2}) {
		t.Errorf("the nested Global decoded over its out: %+v", inner)
	}
	cfg = ovDefaults()
	inner = ovNet{}
	must(t, e.Eval("missing.config", zlua.Overlay(&cfg)))
	if cfg.Net != (ovNet{Host: "localhost", Port: 3}) || cfg.MaxPlayers != 8 {
		t.Errorf("overlay after a nested read: %+v", cfg)
	}
	if inner != (ovNet{Port: 2}) {
		t.Errorf("the nested Global decoded over its out: %+v", inner)
	}
}

// ExampleOverlay keeps the host's defaults that a script's config does
// not set.
func ExampleOverlay() {
	type Config struct {
		Name       string
		MaxPlayers int
		Port       int
	}
	env, _ := zlua.New(zlua.Options{})
	defer env.Close()
	_ = env.DoString(`config = {name = "arena", port = 9000}`)
	cfg := Config{Name: "default", MaxPlayers: 8, Port: 7777}
	if err := env.Global("config", zlua.Overlay(&cfg)); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%+v\n", cfg)
	// Output: {Name:arena MaxPlayers:8 Port:9000}
}
