package zlua_test

import (
	"testing"

	"github.com/zlua-go/zlua"
)

// Copies whose charge a script could steer when the walk sampled: it read
// the first 64 elements of a collection and scaled them up, and stopped
// after 1024 values (probe Q: 64 empty strings before twelve 1 MiB ones,
// or a first field that spent the budget, kept 1.2 GB under 16 MiB).
type chargeBag struct{ L []string }

type chargePadded struct {
	Pad [][]string
	Big []string
}

type chargeAny struct{ A any }

// chargeWalkEnv is an Env with a 4 MiB limit and the functions the walk
// tests call.
func chargeWalkEnv(t *testing.T) *zlua.Env {
	t.Helper()
	e, err := zlua.New(zlua.Options{Libs: zlua.LibsSafe, MemoryLimit: 4 << 20})
	must(t, err)
	must(t, e.SetGlobal("echobag", func(b chargeBag) chargeBag { return b }))
	must(t, e.SetGlobal("mkbag", func() chargeBag { return chargeBag{} }))
	must(t, e.SetGlobal("echopad", func(p chargePadded) chargePadded { return p }))
	must(t, e.SetGlobal("echoany", func(a chargeAny) chargeAny { return a }))
	return e
}

// The setup of the walk tests: big is a 256 KiB string, tail a table of
// 64 empty strings and then four big ones, pad 17 tables of 64 empty
// strings (more than 1024 values).
const chargeWalkSetup = `
local big = string.rep("b", 262144)
local function tail() local t = {} for j = 1, 64 do t[j] = "" end for j = 65, 68 do t[j] = big .. j end return t end
local pad = {} for k = 1, 17 do local p = {} for j = 1, 64 do p[j] = "" end pad[k] = p end
keep = {}
`

func TestTheChargeWalkCannotBeSteered(t *testing.T) {
	for name, loop := range map[string]string{
		"elements after a sample":   `for i = 1, 100 do keep[i] = echobag({L = tail()}) end`,
		"written into a copy":       `for i = 1, 100 do local b = mkbag(); b.L = tail(); keep[i] = b end`,
		"a budget spent on a field": `for i = 1, 100 do keep[i] = echopad({Pad = pad, Big = tail()}) end`,
		"held by an interface":      `for i = 1, 100 do keep[i] = echoany({A = tail()}) end`,
	} {
		t.Run(name, func(t *testing.T) {
			e := chargeWalkEnv(t)
			defer func() { must(t, e.Close()) }()
			mustReachTheLimit(t, e, chargeWalkSetup+loop) // each copy holds 1 MiB
			var n int
			must(t, e.Eval(`#keep`, &n))
			if n > 3 {
				t.Errorf("kept %d copies of 1 MiB each under a 4 MiB limit", n)
			}
			run(t, e, `keep = nil collectgarbage() collectgarbage()`)
			e.Pump()
			if st := e.Stats(); st.CopyBytes != 0 || st.LiveStructs != 0 {
				t.Errorf("after collection: CopyBytes %d, LiveStructs %d", st.CopyBytes, st.LiveStructs)
			}
		})
	}
}

// Under a limit the charge is exact: the struct, the slice's backing
// array and every string's bytes, however many elements.
func TestACopysChargeIsExact(t *testing.T) {
	e := chargeWalkEnv(t)
	defer func() { must(t, e.Close()) }()
	run(t, e, `local t = {} for j = 1, 200 do t[j] = string.rep("e", j * 7) end keep = echobag({L = t})`)
	want := int64(24 + 200*16) // chargeBag, then 200 string headers
	for j := int64(1); j <= 200; j++ {
		want += j * 7
	}
	if got := e.Stats().CopyBytes; int64(got) != want {
		t.Errorf("CopyBytes = %d, want %d", got, want)
	}
	// the same backing array reached twice through interfaces counts once
	run(t, e, `keep = nil collectgarbage() collectgarbage()`)
	e.Pump()
	must(t, e.SetGlobal("twice", func() chargeAny {
		s := []any{"abcd", "efgh"}
		return chargeAny{A: []any{s, s}}
	}))
	run(t, e, `keep = twice()`)
	// chargeAny 16; A's box 24 + backing 2*16; s's box 24 each; s's
	// backing 2*16 once; "abcd" and "efgh" boxed (16 each) with 4 bytes
	want = 16 + 24 + 32 + 24 + 24 + 32 + 2*(16+4)
	if got := e.Stats().CopyBytes; int64(got) != want {
		t.Errorf("a shared backing array: CopyBytes = %d, want %d", got, want)
	}
}

// A Go function a script called that hands the script's by-value
// argument back through a Lua callback gives it a copy as a result would
// (probe Q): pushes made while a script's call runs are charged, the
// host's own outermost pushes are not.
func TestCopiesHandedBackThroughCallbacksAreCharged(t *testing.T) {
	e := chargeEnv(t)
	defer func() { must(t, e.Close()) }()
	must(t, e.SetGlobal("apply", func(m chargeMsg, cb func(chargeMsg)) { cb(m) }))
	mustReachTheLimit(t, e, `local s = string.rep("a", 262144) keep = {}
		for i = 1, 400 do apply({Text = s .. i}, function(m) keep[#keep + 1] = m end) end`)
	run(t, e, `keep = nil collectgarbage() collectgarbage()`)
	if st := e.Stats(); st.CopyBytes != 0 {
		t.Errorf("after collection: CopyBytes %d", st.CopyBytes)
	}
}
